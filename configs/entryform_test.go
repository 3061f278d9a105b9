package configs

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/runaway-guard/runaway/agent"
)

const winBin = `C:\Users\Ana Lee\AppData\Local\Programs\runaway\runaway.exe`

var (
	win         = Platform{OS: "windows"}
	winExecForm = Platform{OS: "windows", ClaudeExecForm: true}
)

func TestHandlerForPerAgentAndOS(t *testing.T) {
	tests := []struct {
		name          string
		harness, bin  string
		p             Platform
		command       string
		args          []string
		shell, cmdWin string
	}{
		{"claude linux", "claude", "/home/u/.local/bin/runaway", Platform{OS: "linux"}, `'/home/u/.local/bin/runaway' hook claude || true`, nil, "", ""},
		{"claude macos ignores exec form", "claude", "/Users/u/.local/bin/runaway", Platform{OS: "darwin", ClaudeExecForm: true}, `'/Users/u/.local/bin/runaway' hook claude || true`, nil, "", ""},
		{"codex macos", "codex", "/Users/u/.local/bin/runaway", Platform{OS: "darwin"}, `'/Users/u/.local/bin/runaway' hook codex || true`, nil, "", ""},
		{"claude windows exec form", "claude", winBin, winExecForm, `C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe`, []string{"hook", "claude"}, "", ""},
		{"claude windows before exec form", "claude", winBin, win, `"C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe" hook claude || true`, nil, "bash", ""},
		{"claude windows, a $ in the path", "claude", `C:\Users\a$b\runaway.exe`, win, `"C:/Users/a\$b/runaway.exe" hook claude || true`, nil, "bash", ""},
		{"codex windows", "codex", winBin, win, `'C:\Users\Ana Lee\AppData\Local\Programs\runaway\runaway.exe' hook codex || true`, nil, "", `& 'C:\Users\Ana Lee\AppData\Local\Programs\runaway\runaway.exe' hook codex`},
		{"codex windows, a quote in the path", "codex", `C:\Users\O'Neil\runaway.exe`, win, `'C:\Users\O'\''Neil\runaway.exe' hook codex || true`, nil, "", `& 'C:\Users\O''Neil\runaway.exe' hook codex`},
		{"gemini windows", "gemini", winBin, win, `if (Test-Path -LiteralPath 'C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe') { & 'C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe' hook gemini }`, nil, "", ""},
		{"gemini linux", "gemini", "/home/u/.local/bin/runaway", Platform{OS: "linux"}, `[ -x '/home/u/.local/bin/runaway' ] && exec '/home/u/.local/bin/runaway' hook gemini`, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := HandlerFor(agent.ID(tt.harness), tt.bin, tt.p)
			if s.Command != tt.command || !slices.Equal(s.Args, tt.args) || s.Shell != tt.shell || s.CommandWindows != tt.cmdWin {
				t.Errorf("got command %q args %q shell %q commandWindows %q\nwant command %q args %q shell %q commandWindows %q",
					s.Command, s.Args, s.Shell, s.CommandWindows, tt.command, tt.args, tt.shell, tt.cmdWin)
			}
			// Gemini CLI's event is BeforeTool, its timeout in milliseconds.
			event, timeout := "PreToolUse", HookTimeout
			if tt.harness == "gemini" {
				event, timeout = GeminiEvent, HookTimeout*1000
			}
			if s.Event != event || s.Timeout != timeout {
				t.Errorf("event %q timeout %d", s.Event, s.Timeout)
			}
			// Every form is recognised as runaway's, naming the same binary.
			words := handlerWords(s.Command, s.Args)
			if !IsRunawayHandler(s.Command, s.Args) || !SamePath(words[0], tt.bin) || !slices.Equal(words[1:3], []string{"hook", tt.harness}) {
				t.Errorf("not recognised as runaway's entry for %s: words %q", tt.bin, words)
			}
			if s.CommandWindows != "" && (!IsRunawayCommand(s.CommandWindows) || !SamePath(powerShellWords(s.CommandWindows)[0], tt.bin)) {
				t.Errorf("commandWindows %q not read back as %s", s.CommandWindows, tt.bin)
			}
		})
	}
}

// The Windows forms as setup writes them into each agent's settings file,
// byte for byte, and remove giving the file back.
func TestWindowsEntriesAsWritten(t *testing.T) {
	in := "{\r\n  \"model\": \"x\"\r\n}\r\n"
	tests := []struct {
		name    string
		file    SettingsFile
		handler string
	}{
		{"claude exec form", SettingsFile{Harness: "claude", Strict: true, Platform: winExecForm},
			`"type": "command",` + "\r\n" + `            "command": "C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe",` + "\r\n" + `            "args": ["hook", "claude"],` + "\r\n" + `            "timeout": 10`},
		{"claude git bash form", SettingsFile{Harness: "claude", Strict: true, Platform: win},
			`"type": "command",` + "\r\n" + `            "command": "\"C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe\" hook claude || true",` + "\r\n" + `            "shell": "bash",` + "\r\n" + `            "timeout": 10`},
		{"codex", SettingsFile{Harness: "codex", Strict: true, OnlyHooksKey: true, Platform: win},
			`"type": "command",` + "\r\n" + `            "command": "'C:\\Users\\Ana Lee\\AppData\\Local\\Programs\\runaway\\runaway.exe' hook codex || true",` + "\r\n" + `            "commandWindows": "& 'C:\\Users\\Ana Lee\\AppData\\Local\\Programs\\runaway\\runaway.exe' hook codex",` + "\r\n" + `            "statusMessage": "runaway: checks each tool call",` + "\r\n" + `            "timeout": 10`},
		// Gemini CLI's event is BeforeTool, its timeout in milliseconds, and
		// its handlers have names.
		{"gemini", SettingsFile{Harness: "gemini", Platform: win},
			`"type": "command",` + "\r\n" + `            "name": "runaway",` + "\r\n" + `            "command": "if (Test-Path -LiteralPath 'C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe') { & 'C:/Users/Ana Lee/AppData/Local/Programs/runaway/runaway.exe' hook gemini }",` + "\r\n" + `            "timeout": 10000`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDoc("settings.json", []byte(in), tt.file.Strict)
			if err != nil {
				t.Fatal(err)
			}
			u, err := d.SetHook(tt.file.Spec(winBin))
			if err != nil {
				t.Fatal(err)
			}
			out := d.Pack()
			want := "{\r\n  \"model\": \"x\",\r\n  \"hooks\": {\r\n    \"" + tt.file.Spec(winBin).Event + "\": [\r\n      {\r\n        \"hooks\": [\r\n          {\r\n            " +
				tt.handler + "\r\n          }\r\n        ]\r\n      }\r\n    ]\r\n  }\r\n}\r\n"
			if string(out) != want {
				t.Fatalf("written:\n%s\nwant:\n%s", out, want)
			}
			if !json.Valid(out) {
				t.Fatalf("not JSON:\n%s", out)
			}
			es := entriesOf(t, out)
			if len(es) != 1 || !SamePath(es[0].Program, winBin) || !slices.Equal(es[0].Args, []string{"hook", string(tt.file.Harness)}) {
				t.Fatalf("entries: %+v", es)
			}
			if es[0].ExecForm != (tt.file.Platform.ClaudeExecForm && tt.file.Harness == "claude") {
				t.Errorf("ExecForm %v", es[0].ExecForm)
			}
			// Setup run again changes nothing.
			d2, _ := ParseDoc("settings.json", out, tt.file.Strict)
			if _, err := d2.SetHook(tt.file.Spec(winBin)); err != nil || string(d2.Pack()) != string(out) {
				t.Fatalf("second setup changed the file (%v):\n%s", err, d2.Pack())
			}
			if n, err := d2.RemoveHooks([]Undo{u}); err != nil || n != 1 || string(d2.Pack()) != in {
				t.Fatalf("remove: %d %v\n%q", n, err, d2.Pack())
			}
		})
	}
}

// An entry in one form is rewritten in the form now due, once, with the
// other form's fields gone; other tools' handlers are left alone.
func TestEntryFormChanges(t *testing.T) {
	linux := Platform{OS: "linux"}
	claude := func(p Platform) SettingsFile { return SettingsFile{Harness: "claude", Strict: true, Platform: p} }
	codex := func(p Platform) SettingsFile { return SettingsFile{Harness: "codex", Strict: true, Platform: p} }
	tests := []struct {
		name     string
		from, to SettingsFile
		gone     []string
	}{
		{"claude git bash form to exec form (Claude Code upgraded)", claude(win), claude(winExecForm), []string{`"shell"`, "|| true"}},
		{"claude exec form to git bash form (Claude Code downgraded)", claude(winExecForm), claude(win), []string{`"args"`}},
		{"claude linux form to exec form", claude(linux), claude(winExecForm), []string{"|| true"}},
		{"codex linux form to windows", codex(linux), codex(win), nil},
		{"codex windows to linux form", codex(win), codex(linux), []string{`"commandWindows"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/theirs.sh"}]}]}}`
			d, _ := ParseDoc("s.json", []byte(in), true)
			if _, err := d.SetHook(tt.from.Spec(winBin)); err != nil {
				t.Fatal(err)
			}
			d2, _ := ParseDoc("s.json", d.Pack(), true)
			if _, err := d2.SetHook(tt.to.Spec(winBin)); err != nil {
				t.Fatal(err)
			}
			out := string(d2.Pack())
			fresh, _ := ParseDoc("s.json", []byte(in), true)
			_, _ = fresh.SetHook(tt.to.Spec(winBin))
			// The fields updated in place keep their places; new ones come
			// last: the same JSON value as a fresh entry.
			var got, want any
			_ = json.Unmarshal([]byte(out), &got)
			_ = json.Unmarshal(fresh.Pack(), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("rewritten entry differs from a fresh one:\n%s\nfresh:\n%s", out, fresh.Pack())
			}
			for _, g := range tt.gone {
				if strings.Contains(out, g) {
					t.Errorf("%s left behind:\n%s", g, out)
				}
			}
			if !strings.Contains(out, "/opt/theirs.sh") || len(entriesOf(t, []byte(out))) != 1 {
				t.Errorf("their handler lost or ours doubled:\n%s", out)
			}
		})
	}
}

func TestPowerShellWords(t *testing.T) {
	tests := map[string][]string{
		`& 'C:\a b\runaway.exe' hook codex`: {`C:\a b\runaway.exe`, "hook", "codex"},
		`& 'C:\O''Neil\runaway.exe' hook x`: {`C:\O'Neil\runaway.exe`, "hook", "x"},
		`&  C:/bin/runaway.exe hook; rm x`:  {"C:/bin/runaway.exe", "hook"},
		`& 'unterminated`:                   {"unterminated"},
		`'C:\runaway.exe' hook codex`:       nil, // no call operator: PowerShell echoes it
		`"C:/runaway.exe" hook claude`:      nil,
		`&& 'C:\runaway.exe' hook`:          nil,
	}
	for in, want := range tests {
		if got := powerShellWords(in); !slices.Equal(got, want) {
			t.Errorf("powerShellWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClaudeRunsExecForm(t *testing.T) {
	tests := map[string]bool{
		"2.1.139 (Claude Code)":     true,
		"2.1.240 (Claude Code)\n":   true,
		"2.2.0":                     true,
		"10.0.0":                    true,
		"2.1.138 (Claude Code)":     false,
		"2.1.47":                    false,
		"1.0.68":                    false,
		"2.1.139-beta.1":            true,
		"v2.1.200":                  true,
		"":                          false,
		"claude: command not found": false,
		"2.1":                       false,
		"2.1.x":                     false,
	}
	for in, want := range tests {
		if got := ClaudeRunsExecForm(in); got != want {
			t.Errorf("ClaudeRunsExecForm(%q) = %v, want %v", in, got, want)
		}
	}
}
