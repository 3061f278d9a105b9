package caller

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// table is a made-up process tree.
type table map[int]Proc

func (t table) Proc(pid int) (Proc, error) {
	p, ok := t[pid]
	if !ok {
		return Proc{}, errors.New("no such process")
	}
	p.PID = pid
	return p, nil
}

func noEnv(string) string { return "" }

// chain builds runaway (pid 100) <- parents..., each the parent of the one before.
func chain(parents ...Proc) table {
	t := table{100: {PPID: 101, Name: "runaway", Args: []string{"runaway", "allow", "--add", "100"}}}
	for i, p := range parents {
		p.PPID = 102 + i
		if i == len(parents)-1 {
			p.PPID = 1
		}
		t[101+i] = p
	}
	return t
}

var bash = Proc{Name: "bash", Exe: "/usr/bin/bash", Args: []string{"/bin/bash", "-c", "-l", "runaway allow --add 100"}}

// The agents as they show in a process table, installed each way people do.
var agents = []struct {
	agent string
	p     Proc
}{
	{"Claude Code", Proc{Name: "claude", Exe: "/home/u/.local/share/claude/versions/2.1.328", Args: []string{"claude", "-p", "fix it"}}},
	{"Claude Code", Proc{Name: "2.1.328", Exe: "/home/u/.local/share/claude/versions/2.1.328", Args: []string{"/home/u/.local/share/claude/versions/2.1.328"}}},
	{"Claude Code", Proc{Name: "node", Exe: "/usr/bin/node", Args: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js", "--resume", "x"}}},
	{"Claude Code", Proc{Name: "node", Exe: "/usr/bin/node", Args: []string{"node", "--no-warnings", "/home/u/.npm-global/bin/claude"}}},
	{"Claude Code", Proc{Name: "claude.exe", Exe: `C:\Users\u\.local\bin\claude.exe`}},
	{"Codex", Proc{Name: "codex", Exe: "/usr/lib/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/codex/codex", Args: []string{"codex", "exec", "go"}}},
	{"Codex", Proc{Name: "node", Args: []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js", "exec"}}},
	{"Codex", Proc{Name: "codex.exe"}},
	{"Gemini CLI", Proc{Name: "node", Args: []string{"/usr/bin/node", "--max-old-space-size=8192", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}}},
	{"Gemini CLI", Proc{Name: "node", Args: []string{"node", "/home/u/.nvm/versions/node/v20/bin/gemini", "-p", "x"}}},
	{"OpenCode", Proc{Name: "opencode", Exe: "/home/u/.opencode/bin/opencode", Args: []string{"opencode", "run", "x"}}},
	{"OpenCode", Proc{Name: "bun", Args: []string{"bun", "/usr/lib/node_modules/opencode-ai/bin/opencode"}}},
	{"Cursor", Proc{Name: "cursor-agent", Args: []string{"cursor-agent", "-p"}}},
}

func TestAgentAmongParents(t *testing.T) {
	for _, a := range agents {
		t.Run(a.agent+"/"+a.p.Name, func(t *testing.T) {
			// runaway <- bash <- agent <- zsh <- sshd
			tree := chain(bash, a.p, Proc{Name: "zsh"}, Proc{Name: "sshd"})
			f, ok := detect(noEnv, 100, tree, 0)
			if !ok || f.Agent != a.agent {
				t.Fatalf("detect = %+v, %v; want %s", f, ok, a.agent)
			}
			if !strings.Contains(f.Why(), "pid 102, is "+a.agent) {
				t.Errorf("Why() = %q, want the agent's pid", f.Why())
			}
		})
	}
}

// The person's own terminals, editors and multiplexers are not agents, and
// neither is a program whose name only contains an agent's.
func TestThePersonPasses(t *testing.T) {
	for _, tree := range []table{
		chain(Proc{Name: "zsh"}, Proc{Name: "tmux: server"}),
		chain(Proc{Name: "bash"}, Proc{Name: "sshd"}, Proc{Name: "sshd"}),
		chain(Proc{Name: "fish"}, Proc{Name: "Cursor Helper", Exe: "/Applications/Cursor.app/Contents/Frameworks/Cursor Helper"}, Proc{Name: "Cursor"}),
		chain(Proc{Name: "bash"}, Proc{Name: "code", Args: []string{"/usr/share/code/code", "--type=ptyHost"}}),
		chain(Proc{Name: "bash"}, Proc{Name: "node", Args: []string{"node", "/home/u/src/claude-clone/server.js"}}),
		chain(Proc{Name: "bash"}, Proc{Name: "node", Args: []string{"node", "build.js", "/x/@anthropic-ai/claude-code/cli.js"}}),
		chain(Proc{Name: "make"}, Proc{Name: "claude-tools"}, Proc{Name: "codexify"}),
		chain(Proc{Name: "go"}, Proc{Name: "bash"}),
	} {
		if f, ok := detect(noEnv, 100, tree, 0); ok {
			t.Errorf("%v: taken for %s (%s)", tree[101].Name, f.Agent, f.Why())
		}
	}
}

func TestVariablesTell(t *testing.T) {
	for _, name := range Variables() {
		env := func(k string) string {
			if k == name {
				return "1"
			}
			return ""
		}
		f, ok := detect(env, 100, chain(bash), 0)
		if !ok || f.Variable != name || !strings.Contains(f.Why(), name+" is set") {
			t.Errorf("%s: detect = %+v, %v", name, f, ok)
		}
	}
}

// The walk ends at the floor, at a cycle, and after 256 parents; a process
// it cannot read (itself, or a parent) means it cannot tell, and then the
// caller is taken for an agent, with the reason.
func TestWalkEnds(t *testing.T) {
	claude := Proc{Name: "claude"}
	if _, ok := detect(noEnv, 100, chain(bash, Proc{Name: "go"}, claude), 102); ok {
		t.Error("the walk went past its floor")
	}
	if _, ok := detect(noEnv, 100, chain(bash, Proc{Name: "go"}, claude), 0); !ok {
		t.Error("without a floor the agent above was missed")
	}
	loop := table{100: {PPID: 101}, 101: {PPID: 102, Name: "a"}, 102: {PPID: 101, Name: "b"}}
	if _, ok := detect(noEnv, 100, loop, 0); ok {
		t.Error("a cycle was taken for an agent")
	}
	deep := table{100: {PPID: 101}}
	for pid := 101; pid < 1101; pid++ {
		deep[pid] = Proc{PPID: pid + 1, Name: "sh"}
	}
	deep[1101] = claude
	if _, ok := detect(noEnv, 100, deep, 0); ok {
		t.Error("the walk went past 256 parents")
	}
	if f, ok := detect(noEnv, 100, table{}, 0); !ok || !strings.Contains(f.Why(), "cannot read its parent processes") {
		t.Errorf("an unreadable self: detect = %+v, %v, want unsure", f, ok)
	}
	if f, ok := detect(noEnv, 100, table{100: {PPID: 101}}, 0); !ok || f.Unsure == "" {
		t.Errorf("an unreadable parent: detect = %+v, %v, want unsure", f, ok)
	}
	if _, ok := detect(noEnv, 100, nil, 0); ok {
		t.Error("no table was taken for an agent")
	}
}

func TestProcFS(t *testing.T) {
	root := t.TempDir()
	write := func(pid, name, content string) {
		dir := filepath.Join(root, pid)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A comm with spaces and parentheses ends at the last ')'.
	write("4242", "stat", "4242 (we) ird (name)) S 4100 4242 4100 0 -1 4194560 1 0 0 0")
	write("4242", "cmdline", "node\x00/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js\x00-p\x00")
	p, err := procFS{root}.Proc(4242)
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != 4242 || p.PPID != 4100 || p.Name != "we) ird (name)" || len(p.Args) != 3 || p.Args[2] != "-p" {
		t.Fatalf("Proc = %+v", p)
	}
	if AgentOf(p) != "Claude Code" {
		t.Errorf("AgentOf = %q", AgentOf(p))
	}
	write("5", "stat", "garbage")
	if _, err := (procFS{root}).Proc(5); err == nil {
		t.Error("a garbled stat was read")
	}
	if _, err := (procFS{root}).Proc(6); err == nil {
		t.Error("a missing process was read")
	}
}

// This process's own tree reads on the OS it runs on.
func TestSystemTableReadsSelf(t *testing.T) {
	tb := systemTable()
	if tb == nil {
		t.Skip("no process table on this OS")
	}
	p, err := tb.Proc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.PPID != os.Getppid() {
		t.Errorf("PPID = %d, want %d", p.PPID, os.Getppid())
	}
}

func TestParseProcargs2(t *testing.T) {
	b := binary.LittleEndian.AppendUint32(nil, 3)
	b = append(b, "/usr/local/bin/node\x00\x00\x00\x00node\x00/opt/@openai/codex/bin/codex.js\x00exec\x00HOME=/Users/u\x00"...)
	exe, args := parseProcargs2(b)
	if exe != "/usr/local/bin/node" || len(args) != 3 || args[1] != "/opt/@openai/codex/bin/codex.js" {
		t.Fatalf("parseProcargs2 = %q, %q", exe, args)
	}
	for _, short := range [][]byte{nil, {1, 0}, binary.LittleEndian.AppendUint32(nil, 9)} {
		parseProcargs2(short) // must not panic
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte("1 (init) S 0 1 1 0"))
	f.Add([]byte("2 ()) S 1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseStat(b)
		parseProcargs2(b)
	})
}
