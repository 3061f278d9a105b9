// Package caller tells whether the person or an agent runs this process.
//
// allow, remove and setup change runaway's limits or wiring: only the person
// may run them. An agent's tool call shows in two ways. The agents set
// variables for the commands they run (CLAUDECODE, CODEX_THREAD_ID, …), but
// a command can drop those (`env -u CLAUDECODE …`). So the process's
// ancestry is read too: an agent's own process among the parents gives the
// call away whatever the environment says and whatever the binary is
// called. A process that leaves the agent's tree on purpose (setsid and a
// double fork, at, cron, systemd-run) is not seen here; the tamper wire
// denies such commands when it can read them, and the threat model in the
// README says what neither can stop.
package caller

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/runaway-guard/runaway/agent"
)

// Found says why the caller is taken for an agent.
type Found struct {
	Agent string // the agent's name for people: "Claude Code"
	// Variable is the environment variable that gave it away, or "".
	Variable string
	// Process is the parent process that gave it away (when Variable is "").
	Process Proc
	// Unsure says why the parent processes could not be read: then the
	// caller is taken for an agent, since an agent can hide them (a PID or
	// user namespace, /proc covered; neither needs root).
	Unsure string
}

// Why is the evidence in words, for error messages.
func (f Found) Why() string {
	if f.Unsure != "" {
		return "runaway cannot read its parent processes to tell: " + f.Unsure
	}
	if f.Variable != "" {
		return f.Variable + " is set"
	}
	return fmt.Sprintf("parent process %s, pid %d, is %s", f.Process.Name, f.Process.PID, f.Agent)
}

// Proc is one process of the ancestry.
type Proc struct {
	PID, PPID int
	Name      string   // the kernel's short name (comm), or the image name on Windows
	Exe       string   // the executable's path, "" when unknown
	Args      []string // the command line, nil when unknown
}

// checkedTable is a table that can tell it is not the whole truth: Linux's
// /proc of another PID namespace, or covered by another file system.
type checkedTable interface {
	unreadable(pid int) string // why the parents cannot be told, or ""
}

// processTable finds a process by pid; the OS's own is in table_*.go.
type processTable interface {
	Proc(pid int) (Proc, error)
}

// anyAgentVars are variables more than one agent sets for the commands its
// tool calls run; each agent's own are in its agent.Facts.
var anyAgentVars = []string{
	"AI_AGENT", // Claude Code 2.1.328 and others
	"AGENT",    // OpenCode, Amp and others
}

// Variables lists the agents' variables that tell a tool call.
func Variables() []string {
	var names []string
	for _, f := range agent.All {
		names = append(names, f.CallVars...)
	}
	return append(names, anyAgentVars...)
}

// InsideAgent reports whether this process runs inside an agent's tool call.
func InsideAgent() (Found, bool) {
	return detect(os.Getenv, os.Getpid(), systemTable(), floorPID())
}

// detect checks the environment, then walks the parents of pid up to (not
// including) floor, or to the top.
func detect(getenv func(string) string, pid int, table processTable, floor int) (Found, bool) {
	for _, f := range agent.All {
		for _, v := range f.CallVars {
			if getenv(v) != "" {
				return Found{Agent: f.Name, Variable: v}, true
			}
		}
	}
	for _, v := range anyAgentVars {
		if getenv(v) != "" {
			return Found{Agent: "an agent", Variable: v}, true
		}
	}
	if table == nil {
		return Found{}, false
	}
	if c, ok := table.(checkedTable); ok {
		if why := c.unreadable(pid); why != "" {
			return Found{Agent: "an agent", Unsure: why}, true
		}
	}
	self, err := table.Proc(pid)
	if err != nil {
		return Found{Agent: "an agent", Unsure: "its own process cannot be read (" + err.Error() + ")"}, true
	}
	seen := map[int]bool{pid: true}
	// 256 parents is far deeper than any real tree; it bounds a table that lies.
	for ppid := self.PPID; ppid > 1 && ppid != floor && !seen[ppid] && len(seen) < 256; {
		seen[ppid] = true
		p, err := table.Proc(ppid)
		if err != nil {
			return Found{Agent: "an agent", Unsure: fmt.Sprintf("parent process %d cannot be read (%v)", ppid, err)}, true
		}
		if agent := AgentOf(p); agent != "" {
			return Found{Agent: agent, Process: p}, true
		}
		ppid = p.PPID
	}
	return Found{}, false
}

// agentProgram names the agent a program name is (comm, the executable,
// argv[0]; lower case, without ".exe"), or "".
func agentProgram(name string) string {
	for _, f := range agent.All {
		if slices.Contains(f.Programs, name) {
			return f.Name
		}
	}
	return ""
}

// agentScript names the agent whose npm package (or scope) holds a script
// an interpreter runs, or "".
func agentScript(script string) string {
	for _, f := range agent.All {
		for _, m := range append(f.Packages[:len(f.Packages):len(f.Packages)], f.ScriptMarks...) {
			if strings.Contains(script, m) {
				return f.Name
			}
		}
	}
	return ""
}

// isInterpreter: the program runs an agent's script given as an argument.
func isInterpreter(name string) bool {
	switch name {
	case "node", "nodejs", "bun", "deno":
		return true
	}
	return false
}

// AgentOf names the agent a process is, or "". The Cursor editor itself is
// not an agent (people run their own terminals in it); its agent CLI is.
func AgentOf(p Proc) string {
	names := []string{p.Name, p.Exe}
	if len(p.Args) > 0 {
		names = append(names, p.Args[0])
	}
	for _, n := range names {
		if a := agentProgram(programName(n)); a != "" {
			return a
		}
	}
	// Claude Code's native install runs ~/.local/share/claude/versions/<version>.
	if strings.Contains(filepath.ToSlash(p.Exe), "/claude/versions/") {
		return "Claude Code"
	}
	if !isInterpreter(programName(p.Name)) && !(len(p.Args) > 0 && isInterpreter(programName(p.Args[0]))) {
		return ""
	}
	for _, arg := range p.Args[min(1, len(p.Args)):] {
		if strings.HasPrefix(arg, "-") {
			continue // node's own flags come before the script
		}
		if a := agentProgram(programName(arg)); a != "" {
			return a
		}
		if a := agentScript(strings.ToLower(filepath.ToSlash(arg))); a != "" {
			return a
		}
		break // the script is the first argument that is not a flag
	}
	return ""
}

// programName is a path's last element in lower case, without ".exe".
func programName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(path), ".exe")
}

// testFloorVar is set (with -ldflags -X) only in the binaries the tests
// build: it names a variable holding the pid where the ancestry walk stops,
// so the tests run the same checks when a developer runs them from inside
// an agent. Release builds leave it empty, and then no variable matters.
var testFloorVar string

func floorPID() int {
	if testFloorVar == "" {
		return 0
	}
	n, err := strconv.Atoi(os.Getenv(testFloorVar))
	if err != nil {
		return 0
	}
	return n
}
