package configs

import (
	"slices"
	"testing"
)

// The "codex" texts are what Codex 0.171 wrote into config.toml when its
// app-server's config/batchWrite (what /hooks uses) trusted runaway's two
// entries, each starting from the "before" text; cutting the records must
// give "before" back, byte for byte (a file without a final newline gets
// one from Codex, which stays).
func TestCutCodexTrust(t *testing.T) {
	const (
		k1 = "/h/.codex/hooks.json:pre_tool_use:0:0"
		k2 = "/h/.codex/hooks.json:user_prompt_submit:0:0"
		r1 = "[hooks.state.\"" + k1 + "\"]\ntrusted_hash = \"sha256:f23c\"\n"
		r2 = "[hooks.state.\"" + k2 + "\"]\ntrusted_hash = \"sha256:1df5\"\n"
	)
	tests := []struct {
		name, before, codex, want string
		keys, cut                 []string
	}{
		{name: "no file before", before: "", codex: r1 + "\n" + r2, want: "", keys: []string{k1, k2}, cut: []string{k1, k2}},
		{name: "no final newline", before: "model = \"x\"", codex: "model = \"x\"\n\n" + r1 + "\n" + r2, want: "model = \"x\"\n", keys: []string{k1, k2}, cut: []string{k1, k2}},
		{
			name:   "beside another record, before another table",
			before: "[hooks.state.\"/other:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n\n[mcp_servers.m]\ncommand = \"x\"\n",
			codex:  "[hooks.state.\"/other:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n\n" + r1 + "\n" + r2 + "\n[mcp_servers.m]\ncommand = \"x\"\n",
			want:   "[hooks.state.\"/other:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n\n[mcp_servers.m]\ncommand = \"x\"\n",
			keys:   []string{k1, k2}, cut: []string{k1, k2},
		},
		{
			name:   "an inline record and a closing comment",
			before: "[hooks.state]\n\"/o:stop:0:0\" = { trusted_hash = \"sha256:11\" }\n# tail comment\n",
			codex:  "[hooks.state]\n\"/o:stop:0:0\" = { trusted_hash = \"sha256:11\" }\n\n" + r1 + "\n" + r2 + "# tail comment\n",
			want:   "[hooks.state]\n\"/o:stop:0:0\" = { trusted_hash = \"sha256:11\" }\n# tail comment\n",
			keys:   []string{k1, k2}, cut: []string{k1, k2},
		},
		{name: "only the keys asked for", before: r1, codex: r1 + "\n" + r2, want: r1, keys: []string{k2}, cut: []string{k2}},
		{name: "switched off in /hooks", codex: "[hooks.state.\"" + k1 + "\"]\nenabled = false\ntrusted_hash = \"sha256:f23c\"\n", want: "", keys: []string{k1}, cut: []string{k1}},
		{name: "CRLF", before: "a = 1\r\n", codex: "a = 1\r\n\r\n[hooks.state.\"" + k1 + "\"]\r\ntrusted_hash = \"sha256:f23c\"\r\n", want: "a = 1\r\n", keys: []string{k1}, cut: []string{k1}},
		// What Codex does not write stays: the person's own line in the
		// table, or the record as an inline table.
		{name: "a line of the person's in the table", codex: r1 + "note = \"mine\"\n", want: r1 + "note = \"mine\"\n", keys: []string{k1}},
		{name: "a key after a blank line", codex: r1 + "\nnote = \"mine\"\n", want: r1 + "\nnote = \"mine\"\n", keys: []string{k1}},
		{name: "an inline table", codex: "[hooks.state]\n\"" + k1 + "\" = { trusted_hash = \"sha256:f23c\" }\n", want: "[hooks.state]\n\"" + k1 + "\" = { trusted_hash = \"sha256:f23c\" }\n", keys: []string{k1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut, err := CutCodexTrust([]byte(tt.codex), tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if !slices.Equal(cut, tt.cut) {
				t.Errorf("cut %q, want %q", cut, tt.cut)
			}
		})
	}
	if _, _, err := CutCodexTrust([]byte("a = [\n"), []string{k1}); err == nil {
		t.Error("a config.toml that does not parse: no error")
	}
}

func TestCodexTrustRecords(t *testing.T) {
	got, err := CodexTrustRecords([]byte("[hooks.state.\"/a:stop:0:0\"]\ntrusted_hash = \"sha256:1\"\n\n[hooks.state.\"/b:stop:0:0\"]\nenabled = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["/a:stop:0:0"] != "sha256:1" || got["/b:stop:0:0"] != "" {
		t.Errorf("got %q", got)
	}
}
