package tamper_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/runaway-guard/runaway/guard"
)

// corpusCase is one call of testdata/corpus.txtar.
type corpusCase struct {
	want, class, name string
	tool              string
	input             json.RawMessage
}

// corpusHome makes the corpus's fake home: its files, a symlink and a hard
// link into runaway's folders, the project as a git repository (with
// settings.local.json ignored) and the home as a dotfiles repository
// tracking .claude/settings.json from before runaway's entry was added.
func corpusHome(t testing.TB, ar *txtar.Archive) (home string, env map[string]string) {
	t.Helper()
	home = t.TempDir()
	proj := filepath.Join(home, "src", "proj")
	fill := func(s string) string {
		return strings.NewReplacer("@HOME@", home, "@PROJ@", proj).Replace(s)
	}
	for _, f := range ar.Files {
		name, ok := strings.CutPrefix(f.Name, "home/")
		if !ok {
			continue
		}
		p := filepath.Join(home, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(fill(string(f.Data))), 0o644))
	}
	must(t, os.Chmod(filepath.Join(home, ".local/bin/runaway"), 0o755))
	must(t, os.Symlink(filepath.Join(home, ".local/state/runaway/sessions"), filepath.Join(proj, "sessions-link")))
	must(t, os.Link(filepath.Join(home, ".config/runaway/config.json"), filepath.Join(proj, "cfg-hardlink.json")))
	must(t, os.Symlink(filepath.Join(home, ".config/runaway"), filepath.Join(proj, "cfgdir2")))
	// Archives: two harmless, two that hold runaway's files.
	writeTarGz(t, filepath.Join(proj, "dist.tar.gz"), "dist/app.js", "dist/index.html")
	writeTarGz(t, filepath.Join(proj, "evil.tar.gz"), "README", ".claude/settings.local.json")
	writeTarGz(t, filepath.Join(home, "dots.tgz"), ".bashrc", ".config/runaway/config.json")
	writeZip(t, filepath.Join(proj, "site.zip"), "index.html", "css/site.css")

	env = map[string]string{
		"HOME":              home,
		"USER":              "corpus",
		"PATH":              os.Getenv("PATH"),
		"XDG_CONFIG_HOME":   filepath.Join(home, ".config"),
		"XDG_STATE_HOME":    filepath.Join(home, ".local", "state"),
		"XDG_BIN_HOME":      filepath.Join(home, ".local", "bin"),
		"CLAUDE_CONFIG_DIR": filepath.Join(home, ".claude"),
		"CODEX_HOME":        filepath.Join(home, ".codex"),
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Logf("git is not installed: the git cases run without repositories")
		return home, env
	}
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=c", "-c", "user.email=c@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(proj, "init", "-q")
	git(proj, "add", "-A")
	git(proj, "commit", "-qm", "project")
	settings := filepath.Join(home, ".claude", "settings.json")
	now, err := os.ReadFile(settings)
	must(t, err)
	must(t, os.WriteFile(settings, []byte(`{"model": "opus"}`+"\n"), 0o644))
	git(home, "init", "-q")
	git(home, "add", ".claude/settings.json")
	git(home, "commit", "-qm", "dotfiles")
	must(t, os.WriteFile(settings, now, 0o644))
	return home, env
}

// writeTarGz writes a gzip'ed tar holding empty files of those names.
func writeTarGz(t testing.TB, p string, names ...string) {
	t.Helper()
	var b bytes.Buffer
	gz := gzip.NewWriter(&b)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		must(t, tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg}))
	}
	must(t, tw.Close())
	must(t, gz.Close())
	must(t, os.WriteFile(p, b.Bytes(), 0o644))
}

// writeZip writes a zip holding empty files of those names.
func writeZip(t testing.TB, p string, names ...string) {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, n := range names {
		_, err := zw.Create(n)
		must(t, err)
	}
	must(t, zw.Close())
	must(t, os.WriteFile(p, b.Bytes(), 0o644))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// readCorpus reads the cases: "-- WANT CLASS NAME --" and a Bash command or
// a {"tool_name", "tool_input"} object.
func readCorpus(t testing.TB, ar *txtar.Archive, home string) []corpusCase {
	t.Helper()
	fill := strings.NewReplacer("@HOME@", home, "@PROJ@", filepath.Join(home, "src", "proj"))
	var cases []corpusCase
	for _, f := range ar.Files {
		fields := strings.Fields(f.Name)
		if len(fields) != 3 {
			continue
		}
		c := corpusCase{want: fields[0], class: fields[1], name: fields[2]}
		switch c.want {
		case "deny", "ask", "pass", "gap":
		default:
			t.Fatalf("corpus case %q: want %q is not deny, ask, pass or gap", f.Name, c.want)
		}
		body := fill.Replace(strings.TrimSuffix(string(f.Data), "\n"))
		if strings.HasPrefix(body, `{"tool_name"`) {
			var call struct {
				Tool  string          `json:"tool_name"`
				Input json.RawMessage `json:"tool_input"`
			}
			if err := json.Unmarshal([]byte(body), &call); err != nil {
				t.Fatalf("corpus case %q: %v", f.Name, err)
			}
			c.tool, c.input = call.Tool, call.Input
		} else {
			c.tool = "Bash"
			c.input, _ = json.Marshal(map[string]string{"command": body})
		}
		cases = append(cases, c)
	}
	return cases
}

// decide replays one call as a hook call and returns its decision: deny,
// ask, or none.
func decide(t testing.TB, h *guard.Hook, c corpusCase, cwd string, n int) (string, string) {
	in, _ := json.Marshal(map[string]any{
		"session_id":      fmt.Sprintf("corpus-%d", n),
		"hook_event_name": "PreToolUse",
		"cwd":             cwd,
		"tool_name":       c.tool,
		"tool_input":      c.input,
		"tool_use_id":     fmt.Sprintf("toolu_%d", n),
	})
	var out bytes.Buffer
	h.Run(bytes.NewReader(in), &out, "claude")
	if out.Len() == 0 {
		return "none", ""
	}
	var ans struct {
		Specific struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil {
		t.Fatalf("%s: answer %q: %v", c.name, out.String(), err)
	}
	if ans.Specific.Decision == "" {
		return "none", out.String()
	}
	return ans.Specific.Decision, ans.Specific.Reason
}

// TestTamperCorpus replays the corpus and counts, per class: attempts
// denied and passed, ordinary commands passed and denied (false
// positives). Run with -v for the table.
func TestTamperCorpus(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/corpus.txtar")
	must(t, err)
	home, env := corpusHome(t, ar)
	cases := readCorpus(t, ar, home)
	proj := filepath.Join(home, "src", "proj")
	h := &guard.Hook{
		StateDir:   filepath.Join(home, ".local", "state", "runaway"),
		ConfigPath: filepath.Join(home, ".config", "runaway", "config.json"),
		BinPath:    filepath.Join(home, ".local", "bin", "runaway"),
		Getenv:     func(k string) string { return env[k] },
	}
	type count struct{ stopped, passed int }
	counts := map[string]*count{}
	var missed []string
	var dump strings.Builder
	for i, c := range cases {
		got, reason := decide(t, h, c, proj, i)
		fmt.Fprintf(&dump, "%s %s %s: %s %s\n", c.want, c.class, c.name, got, strings.ReplaceAll(reason, home, "~"))
		stopped := got == "deny" || got == "ask"
		if testing.Verbose() && stopped {
			t.Logf("%s %s %s: %s %.200s", c.want, c.class, c.name, got, strings.ReplaceAll(reason, home, "~"))
		}
		key := c.want + " " + c.class
		if counts[key] == nil {
			counts[key] = &count{}
		}
		if stopped {
			counts[key].stopped++
		} else {
			counts[key].passed++
		}
		switch {
		case c.want == "deny" && got != "deny",
			c.want == "ask" && got != "ask",
			c.want == "pass" && got != "none":
			missed = append(missed, fmt.Sprintf("%s %s %s: got %s %.160s", c.want, c.class, c.name, got, reason))
		case c.want == "gap" && stopped:
			missed = append(missed, fmt.Sprintf("gap %s %s is now %s: make it a deny case", c.class, c.name, got))
		}
	}
	if p := os.Getenv("RUNAWAY_CORPUS_DUMP"); p != "" {
		// Every case's verdict and reason, one a line: diffed before and
		// after a change to the wire that should keep every verdict.
		must(t, os.WriteFile(p, []byte(dump.String()), 0o644))
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	total := map[string]*count{}
	for _, k := range keys {
		want := strings.Fields(k)[0]
		if total[want] == nil {
			total[want] = &count{}
		}
		total[want].stopped += counts[k].stopped
		total[want].passed += counts[k].passed
		t.Logf("%-22s stopped %3d  passed %3d", k, counts[k].stopped, counts[k].passed)
	}
	for _, want := range []string{"deny", "ask", "gap", "pass"} {
		if c := total[want]; c != nil {
			t.Logf("TOTAL %-16s stopped %3d  passed %3d", want, c.stopped, c.passed)
		}
	}
	for _, m := range missed {
		t.Error(m)
	}
}

// sharedFixtures finds shared/fixtures/<name> beside the module root (or
// beside the folder holding it, for a worktree), or skips the test.
func sharedFixtures(t testing.TB, name string) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	must(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if parent := filepath.Dir(dir); parent != dir {
			dir = parent
			continue
		}
		t.Skip("module root not found")
	}
	for _, up := range []string{"..", "../.."} {
		p := filepath.Join(dir, up, "shared", "fixtures", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skipf("shared/fixtures/%s not found beside %s (the real sessions live outside the repository)", name, dir)
	return ""
}

// realToolCalls are the distinct tool calls of the real sessions under
// dir, in the hook's shape: Claude Code's tool_use blocks as they are,
// Codex's shell and exec_command as Bash commands and its apply_patch as
// apply_patch. Calls that are not commands or file tools (write_stdin,
// update_plan) are left out.
func realToolCalls(t testing.TB, dir string) []corpusCase {
	t.Helper()
	seen := map[string]bool{}
	var out []corpusCase
	add := func(file, tool string, input json.RawMessage) {
		key := tool + "\x00" + string(input)
		if seen[key] || len(input) == 0 {
			return
		}
		seen[key] = true
		out = append(out, corpusCase{want: "pass", class: "real", name: fmt.Sprintf("%s#%d", filepath.Base(file), len(out)), tool: tool, input: input})
	}
	bash := func(cmd string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"command": cmd})
		return b
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") && !strings.HasSuffix(p, ".json") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(data)) {
			var rec struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
				Payload struct {
					Type      string          `json:"type"`
					Name      string          `json:"name"`
					Arguments string          `json:"arguments"`
					Input     string          `json:"input"`
					Action    json.RawMessage `json:"action"`
				} `json:"payload"`
			}
			if json.Unmarshal([]byte(line), &rec) != nil {
				continue
			}
			var blocks []struct {
				Type  string          `json:"type"`
				Name  string          `json:"name"`
				Input json.RawMessage `json:"input"`
			}
			if json.Unmarshal(rec.Message.Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_use" {
						add(p, b.Name, b.Input)
					}
				}
			}
			switch pl := rec.Payload; {
			case pl.Type == "custom_tool_call" && pl.Name == "apply_patch":
				add(p, "apply_patch", bash(pl.Input))
			case pl.Type == "function_call" && (pl.Name == "shell" || pl.Name == "exec_command"):
				var args struct {
					Cmd     string   `json:"cmd"`
					Command []string `json:"command"`
				}
				if json.Unmarshal([]byte(pl.Arguments), &args) != nil {
					continue
				}
				cmd := args.Cmd
				if n := len(args.Command); n == 3 && (args.Command[0] == "bash" || args.Command[0] == "zsh") && strings.HasPrefix(args.Command[1], "-") {
					cmd = args.Command[2] // ["bash", "-lc", SCRIPT]
				} else if n > 0 {
					q := make([]string, n)
					for i, a := range args.Command {
						q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
					}
					cmd = strings.Join(q, " ")
				}
				if cmd != "" {
					add(p, "Bash", bash(cmd))
				}
			}
		}
		return nil
	})
	must(t, err)
	return out
}

// TestOrdinaryWorkFromRealSessions: every tool call of the real sessions
// in shared/fixtures/real (Claude Code and Codex, from public projects'
// test data) passes the tamper wire: none of them touches runaway.
func TestOrdinaryWorkFromRealSessions(t *testing.T) {
	calls := realToolCalls(t, sharedFixtures(t, "real"))
	if len(calls) < 150 {
		t.Fatalf("%d real tool calls, want at least 150", len(calls))
	}
	ar, err := txtar.ParseFile("testdata/corpus.txtar")
	must(t, err)
	home, env := corpusHome(t, ar)
	h := &guard.Hook{
		StateDir:   filepath.Join(home, ".local", "state", "runaway"),
		ConfigPath: filepath.Join(home, ".config", "runaway", "config.json"),
		BinPath:    filepath.Join(home, ".local", "bin", "runaway"),
		Getenv:     func(k string) string { return env[k] },
	}
	tools := map[string]int{}
	stopped := 0
	for i, c := range calls {
		tools[c.tool]++
		// Each call its own session: the loop wire is not what is under test.
		got, reason := decide(t, h, c, filepath.Join(home, "src", "proj"), 100000+i)
		if got != "none" {
			stopped++
			t.Errorf("%s %s %.300s: %s %.300s", c.name, c.tool, c.input, got, strings.ReplaceAll(reason, home, "~"))
		}
	}
	t.Logf("%d real tool calls, %d stopped; by tool: %v", len(calls), stopped, tools)
}
