package installer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// Status is a doctor check's outcome: ok, warn (something only the person
// can still do, or that weakens the guard), fail (something is broken).
type Status string

const (
	StatusOK   Status = "ok"
	StatusWarn Status = "warn"
	StatusFail Status = "fail"
)

// Check is one line of `runaway doctor`.
type Check struct {
	Status Status `json:"status"`
	Check  string `json:"check"`
	Detail string `json:"detail"`
}

// DoctorOptions are what the checks compare against.
type DoctorOptions struct {
	// Version is this runaway's version ("devel…" for dev builds).
	Version string
	// Executable is this runaway's binary; "" means the running one.
	Executable string
	// Dir is the current folder: its project settings files are read too.
	Dir   string
	Paths *Paths
}

// doctor carries what the checks share.
type doctor struct {
	opts   DoctorOptions
	paths  Paths
	rec    *Installed
	agents map[agent.ID]Found
	shell  string
	// platform decides the entry form doctor expects (see configs.HandlerFor).
	platform configs.Platform
	out      []Check
}

func (d *doctor) add(s Status, check, format string, args ...any) {
	d.out = append(d.out, Check{s, check, fmt.Sprintf(format, args...)})
}

// Doctor runs every check and returns them in order. It writes nothing but
// its marker of the error log in the state folder; the live tests run the
// installed hook against a temporary state folder.
func Doctor(opts DoctorOptions) []Check {
	d := &doctor{opts: opts, paths: DefaultPaths(), agents: map[agent.ID]Found{}, shell: agentShell()}
	if opts.Paths != nil {
		d.paths = *opts.Paths
	}
	found := Detect()
	for _, f := range found {
		d.agents[f.ID] = f
	}
	d.platform = thisPlatform(found)
	if l := sysmode.Real(); l.Installed() && opts.Paths == nil {
		d.checkSystem(l)
		return d.out
	}
	var err error
	if d.rec, err = ReadInstalled(d.paths.Installed); err != nil {
		d.add(StatusFail, "record", "%v; run: runaway setup", err)
	}
	for _, check := range doctorChecks {
		check(d)
	}
	return d.out
}

// doctorChecks are doctor's checks, in the order it shows them: runaway's
// own files, then each agent's checks (its Harness's doctor, settingsChecks
// and protection, in its own file), then how each is kept from runaway's
// files. Each adds its lines.
var doctorChecks = []func(*doctor){
	(*doctor).checkBinary,
	(*doctor).checkLinkage,
	(*doctor).checkConfig,
	(*doctor).checkState,
	(*doctor).checkErrorLog,
	(*doctor).checkShell,
	(*doctor).checkAgents,
	(*doctor).checkProtection,
}

// checkAgents runs each agent's own checks, or says whether it is there.
func (d *doctor) checkAgents() {
	for _, h := range Harnesses {
		if h.doctor != nil {
			h.doctor(d, h)
		} else {
			d.checkFound(h)
		}
	}
}

// Failed counts the checks that failed.
func Failed(checks []Check) int {
	n := 0
	for _, c := range checks {
		if c.Status == StatusFail {
			n++
		}
	}
	return n
}

// installedBinary is the binary the entries should run.
func (d *doctor) installedBinary() string {
	if d.rec != nil && d.rec.Binary != "" {
		return d.rec.Binary
	}
	return d.paths.Bin
}

func (d *doctor) checkBinary() {
	bin := d.installedBinary()
	name := ownfiles.Tilde(bin)
	info, err := os.Stat(bin)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.add(StatusFail, "binary", "%s is missing; run: runaway setup", name)
		return
	case err != nil:
		d.add(StatusFail, "binary", "%v", err)
		return
	case !info.Mode().IsRegular() || info.Mode()&0o111 == 0:
		d.add(StatusFail, "binary", "%s is not an executable file; run: runaway setup", name)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		d.add(StatusFail, "binary", "%s does not run (%v); run: runaway setup", name, err)
		return
	}
	theirs := strings.TrimPrefix(firstLine(string(out)), "runaway ")
	ours := d.opts.Version
	if !strings.HasPrefix(ours, "devel") && !strings.HasPrefix(theirs, "devel") {
		if theirs == ours {
			d.add(StatusOK, "binary", "%s runs, version %s", name, ours)
		} else {
			d.add(StatusWarn, "binary", "%s is version %s, this runaway is %s; run: runaway setup (installs this one)", name, theirs, ours)
		}
		return
	}
	// Dev builds carry no version: compare the programs' bytes.
	exe := d.opts.Executable
	if exe == "" {
		if exe, err = runningExecutable(); err != nil {
			d.add(StatusWarn, "binary", "%s runs (%s); %v", name, theirs, err)
			return
		}
	}
	same, err := sameContent(bin, exe)
	switch {
	case err != nil:
		d.add(StatusWarn, "binary", "%s runs (%s); comparing it with this runaway: %v", name, theirs, err)
	case same:
		d.add(StatusOK, "binary", "%s runs, the same build as this runaway (%s)", name, theirs)
	default:
		d.add(StatusWarn, "binary", "%s is another build than this runaway (%s, content differs); run: runaway setup (installs this one)", name, theirs)
	}
}

// checkLinkage warns about a dynamically linked binary: the loader runs
// on every tool call. Nothing is said of a binary that is not ELF.
func (d *doctor) checkLinkage() {
	bin := d.installedBinary()
	loader, isELF, err := elfLoader(bin)
	switch {
	case err != nil || !isELF:
		return // checkBinary says what is wrong with a missing or broken one
	case loader != "":
		d.add(StatusWarn, "binary-linkage", "%s is dynamically linked (%s): the loader runs on every tool call and slows each one; install a static build: CGO_ENABLED=0 go install github.com/runaway-guard/runaway/cmd/runaway@latest && runaway setup",
			ownfiles.Tilde(bin), loader)
	default:
		d.add(StatusOK, "binary-linkage", "%s is statically linked", ownfiles.Tilde(bin))
	}
}

func sameContent(a, b string) (bool, error) {
	x, err := os.ReadFile(a)
	if err != nil {
		return false, err
	}
	y, err := os.ReadFile(b)
	if err != nil {
		return false, err
	}
	return HashBytes(x) == HashBytes(y), nil
}

func (d *doctor) checkConfig() {
	name := ownfiles.Tilde(d.paths.Config)
	if _, err := os.Stat(d.paths.Config); errors.Is(err, fs.ErrNotExist) {
		d.add(StatusOK, "config", "%s absent: the defaults apply ($%d cap per session)", name, configs.DefaultSessionCapUSD)
		return
	}
	p, problems := configs.LoadPolicy(d.paths.Config, os.Getenv)
	if len(problems) > 0 {
		// A misspelt key only warns (the file's other fields apply); a
		// field the hook cannot use fails.
		status := StatusWarn
		var texts []string
		for _, e := range problems {
			var u *configs.UnknownFieldError
			if !errors.As(e, &u) {
				status = StatusFail
			}
			texts = append(texts, e.Error())
		}
		d.add(status, "config", "%s (every other field applies); fix it: $EDITOR %s", strings.Join(texts, "; "), name)
		return
	}
	capText := "no cap per session"
	if p.SessionCapUSD > 0 {
		capText = fmt.Sprintf("$%g cap per session", p.SessionCapUSD)
	}
	if p.PromptCapUSD > 0 {
		capText += fmt.Sprintf(", $%g per prompt", p.PromptCapUSD)
	}
	if p.DailyCapUSD > 0 {
		capText += fmt.Sprintf(", $%g per day", p.DailyCapUSD)
	}
	d.add(StatusOK, "config", "%s: %s, warn at %g%%, ask after %d failures or %d repeats",
		name, capText, p.WarnAt*100, p.FailureRun, p.RepeatRun)
}

func (d *doctor) checkState() {
	name := ownfiles.Tilde(d.paths.State)
	err := os.MkdirAll(d.paths.State, 0o700)
	if err == nil {
		// As much as the hook writes for a session (one block): an empty
		// file can be made on a full disk, a session's state cannot.
		var f *os.File
		if f, err = os.CreateTemp(d.paths.State, ".doctor-*"); err == nil {
			_, err = f.Write(make([]byte, 4<<10))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if rerr := os.Remove(f.Name()); err == nil {
				err = rerr
			}
		}
	}
	if errors.Is(err, syscall.ENOSPC) {
		d.add(StatusFail, "state", "%s is not writable (%v): the hook cannot keep its count; free space on its disk", name, err)
		return
	}
	if err != nil {
		d.add(StatusFail, "state", "%s is not writable (%v): the hook cannot keep its count; fix its permissions", name, err)
		return
	}
	if n, last := unsavedState(d.paths.State); n > 0 {
		d.add(StatusFail, "state", "%s is writable now, but the hook could not write session state %s since the last doctor run (the answers were given; counts since then may be short); the last: %s", name, times(n), last)
		return
	}
	d.add(StatusOK, "state", "%s is writable", name)
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// unsavedState counts the unread error-log lines that say a session's
// state could not be written (guard.ErrNotKept), and gives the last.
func unsavedState(stateDir string) (n int, last string) {
	fresh, _ := ownfiles.UnreadErrors(stateDir)
	for _, l := range fresh {
		if strings.Contains(l, "session state could not be written") {
			n, last = n+1, l
		}
	}
	return n, last
}

func (d *doctor) checkErrorLog() {
	logPath := filepath.Join(d.paths.State, ownfiles.ErrorLogName)
	fresh, next := ownfiles.UnreadErrors(d.paths.State)
	if len(fresh) == 0 {
		d.add(StatusOK, "errors", "no new errors in %s since the last doctor run", ownfiles.Tilde(logPath))
		return
	}
	_ = ownfiles.MarkErrorsRead(d.paths.State, next)
	d.add(StatusWarn, "errors", "%d new in %s since the last doctor run (the hook answered \"no decision\" then); the last: %s",
		len(fresh), ownfiles.Tilde(logPath), fresh[len(fresh)-1])
}

// agentShell is the shell the agents run hook commands with: Claude Code
// and Codex 0.169 run `$SHELL -c <command>`.
func agentShell() string {
	if s := os.Getenv("SHELL"); s != "" {
		return s
	}
	return "/bin/sh"
}

func (d *doctor) checkShell() {
	if d.platform.OS == "windows" {
		// The agents there run hooks in PowerShell, Git Bash or no shell,
		// each entry in the form its agent needs; the live tests run each.
		d.add(StatusOK, "shell", "Windows: each entry is written in its agent's form (exec form, Git Bash or PowerShell); no $SHELL to check")
		return
	}
	out, err := d.shellOutput("-c")
	switch {
	case err != nil:
		d.add(StatusFail, "shell", "%s -c true failed (%v): the agents run hooks with it; fix $SHELL", d.shell, err)
	case out != "":
		d.add(StatusFail, "shell", "%s -c true prints %q: the agents read the hook's answer from stdout, so this corrupts it; move that output in your shell's startup files behind an interactive check (bash: [[ $- == *i* ]] || return; zsh: ~/.zshenv runs for every shell)",
			d.shell, firstLine(out))
	default:
		// Codex releases before 0.169 ran hooks in a login shell
		// (reference/codex.md §1), which also reads ~/.profile and the like.
		if out, err := d.shellOutput("-lc"); err == nil && out != "" {
			d.add(StatusWarn, "shell", "%s -c prints nothing, but %s -lc true prints %q: Codex versions that run hooks in a login shell get it mixed into runaway's answers; move that output out of your login files (~/.profile, ~/.bash_profile, ~/.zprofile) or behind an interactive check",
				d.shell, d.shell, firstLine(out))
			return
		}
		d.add(StatusOK, "shell", "%s -c prints nothing before a hook's answer", d.shell)
	}
}

// shellOutput is what `$SHELL <flag> true` prints on stdout.
func (d *doctor) shellOutput(flag string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.shell, flag, "true")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	return stdout.String(), err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}

// wiredFile is one settings file doctor checks runaway's entry in: a
// harness's user file, or a project file setup --project wrote.
type wiredFile struct {
	sf    configs.SettingsFile
	prior *InstalledFile
	check string // prefix of the checks' names
	fix   string // the setup command that rewires it
}

// checkWired checks a harness runaway writes an entry for, then the
// project files setup wired for it.
func (d *doctor) checkWired(h Harness) {
	sf, _ := configs.SettingsFor(h.ID)
	d.checkFile(h, wiredFile{sf: sf, prior: d.rec.File(h.ID), check: string(h.ID), fix: "runaway setup --harness " + string(h.ID)})
	if d.rec == nil {
		return
	}
	for _, f := range d.rec.Projects() {
		if f.Harness != h.ID {
			continue
		}
		dir := filepath.Dir(filepath.Dir(f.Path))
		d.checkFile(h, wiredFile{sf: configs.ClaudeProjectFile(f.Path), prior: &f, check: string(h.ID) + "-project",
			fix: "runaway setup --harness " + string(h.ID) + " --project " + configs.ShellQuote(dir)})
	}
}

// checkFile checks one settings file runaway's entry goes in.
func (d *doctor) checkFile(h Harness, w wiredFile) {
	sf, prior := w.sf, w.prior
	sf.Platform = d.platform // the events this agent's version has
	name := ownfiles.Tilde(sf.Path)
	if prior != nil && filepath.Clean(prior.Path) != filepath.Clean(sf.Path) {
		d.add(StatusWarn, w.check+"-settings", "setup wrote %s, but %s now reads %s; run: %s", ownfiles.Tilde(prior.Path), h.Name, name, w.fix)
	}
	entries, doc, err := configs.ReadSettings(sf, name)
	if err != nil {
		d.add(StatusFail, w.check+"-settings", "%v; %s may ignore the file: fix it, then run: runaway doctor", err, h.Name)
		return
	}
	if len(entries) == 0 && prior == nil {
		if d.agents[h.ID].Found {
			d.add(StatusOK, string(h.ID), "found, not wired; run: runaway setup --harness %s", h.ID)
		} else {
			d.add(StatusOK, string(h.ID), "not installed")
		}
		return
	}
	if _, err := os.Stat(sf.Path); errors.Is(err, fs.ErrNotExist) {
		d.add(StatusFail, w.check+"-settings", "%s is gone: %s is not guarded; run: %s", name, h.Name, w.fix)
		return
	}
	d.add(StatusOK, w.check+"-settings", "%s parses", name)
	if prior != nil {
		if b, err := os.ReadFile(sf.Path); err == nil && HashBytes(b) != prior.SHA256 {
			d.add(StatusWarn, w.check+"-changed", "%s changed since setup wrote it (you or another tool edited it); runaway's entry is checked on its own line", name)
		} else if err == nil {
			d.add(StatusOK, w.check+"-changed", "%s is as setup wrote it", name)
		}
	}
	byEvent := map[string][]configs.Entry{}
	for _, e := range entries {
		byEvent[e.Event] = append(byEvent[e.Event], e)
	}
	// The first spec is the entry before each tool call (Gemini CLI:
	// BeforeTool); Claude Code's and Codex's files also hold one before
	// each prompt.
	specs := sf.Specs(d.installedBinary())
	events := []string{}
	for _, sp := range specs {
		events = append(events, sp.Event)
	}
	entry, ok := d.checkEntry(h, w, name, events[0], byEvent[events[0]])
	var prompt configs.Entry
	promptOK := false
	if len(events) > 1 {
		prompt, promptOK = d.checkEntry(h, w, name, events[1], byEvent[events[1]])
	}
	for _, event := range events[min(2, len(events)):] {
		d.checkEntry(h, w, name, event, byEvent[event])
	}
	for event, es := range byEvent {
		if !slices.Contains(events, event) {
			d.add(StatusFail, w.check+"-entry", "%s:%d: a runaway entry under %s, where runaway answers nothing; run: %s", name, es[0].Line, event, w.fix)
		}
	}
	switch {
	case prior != nil && prior.Project:
		for _, warning := range sf.Warnings(name, doc) {
			d.add(StatusFail, w.check+"-hooks-off", "%s", warning)
		}
	case h.settingsChecks != nil:
		h.settingsChecks(d, &wiredChecks{sf: sf, doc: doc, byEvent: byEvent, entry: entry, prompt: prompt, promptOK: promptOK})
	}
	if ok {
		d.liveTest(h, w.check, entry)
	}
}

// eventCheck is how doctor names and weighs runaway's entry under an event
// besides the one before each tool call: the check's name (after the
// file's prefix), what each entry does, and what is lost without it (a
// warning: setups before it lacked it). Those of one agent are in its
// Harness.events; commonEvents are shared.
type eventCheck struct{ check, each, without string }

// commonEvents: Claude Code and Codex both take an entry before each prompt.
var commonEvents = map[string]eventCheck{
	"UserPromptSubmit": {"prompt-entry", "each runs on every prompt", "a prompt in a session over its cap still reaches the model before runaway stops its first tool call"},
}

// checkEntry checks there is exactly one entry under the event and that
// it is well formed. The entry before each tool call guards every call;
// a missing entry under another event only warns.
func (d *doctor) checkEntry(h Harness, w wiredFile, name, event string, entries []configs.Entry) (configs.Entry, bool) {
	ec, more := h.events[event]
	if !more {
		ec, more = commonEvents[event]
	}
	check, what := w.check+"-entry", "each runs on every call"
	if more {
		check, what = w.check+"-"+ec.check, ec.each
	}
	fix := "run: " + w.fix
	switch len(entries) {
	case 0:
		if more {
			d.add(StatusWarn, check, "no runaway entry under %s in %s: %s; %s", event, name, ec.without, fix)
		} else {
			d.add(StatusFail, check, "no runaway entry in %s: %s is not guarded; %s", name, h.Name, fix)
		}
		return configs.Entry{}, false
	case 1:
	default:
		var at []string
		for _, e := range entries {
			at = append(at, fmt.Sprint(e.Line))
		}
		d.add(StatusFail, check, "%d runaway entries under %s in %s (lines %s): %s; %s (keeps one)", len(entries), event, name, strings.Join(at, ", "), what, fix)
		return entries[0], false
	}
	e := entries[0]
	e.Timeout = w.sf.TimeoutSeconds(e.Timeout)
	bin := d.installedBinary()
	var problems []string
	if e.Type != "command" {
		problems = append(problems, fmt.Sprintf("its type is %q, not \"command\"", e.Type))
	}
	if !configs.SamePath(e.Program, bin) {
		problems = append(problems, fmt.Sprintf("it runs %s, not the installed %s", e.Program, ownfiles.Tilde(bin)))
	}
	sf := w.sf
	sf.Platform = d.platform
	problems = append(problems, formProblems(e, sf.Spec(bin), h.Name)...)
	if !e.HasTimeout {
		problems = append(problems, fmt.Sprintf("it has no timeout, so a stuck hook holds the agent for %s's default", h.Name))
	}
	if len(problems) > 0 {
		d.add(StatusFail, check, "%s:%d: %s; %s", name, e.Line, strings.Join(problems, "; "), fix)
		return e, false
	}
	form := "ends in || true"
	switch {
	case e.ExecForm:
		form = "exec form, no shell"
	case e.Guarded:
		form = "runs only when it is there"
	case e.CommandWindows != "":
		form = "ends in || true, commandWindows for PowerShell"
	}
	d.add(StatusOK, check, "%s:%d runs %s hook %s on %s, %s, timeout %gs", name, e.Line, ownfiles.Tilde(bin), h.ID, event, form, e.Timeout)
	return e, true
}

// formProblems compares an entry's form with the one setup writes on this
// platform (want): a form the agent's shell here misreads fails quietly.
func formProblems(e configs.Entry, want configs.HookSpec, agent string) []string {
	var out []string
	switch {
	case want.Args != nil && !e.ExecForm:
		out = append(out, agent+" runs the exec form (command + args) here, with no shell to misquote the path; the entry is a shell command")
	case want.Args == nil && e.ExecForm:
		out = append(out, "it is in exec form (command + args), which this "+agent+" does not run")
	case !e.ExecForm && strings.HasSuffix(want.Command, "|| true") && !e.OrTrue:
		out = append(out, "it does not end in `|| true`, so a crashed runaway could block the agent")
	case !e.ExecForm && configs.IsGuarded(want.Command) && !e.Guarded:
		// Gemini CLI reads a missing program's exit 127 as "block".
		out = append(out, "it does not start with `[ -x …] && exec`, so a missing runaway would block every call")
	}
	if want.Shell != e.Shell {
		out = append(out, fmt.Sprintf("its \"shell\" is %q, not %q", e.Shell, want.Shell))
	}
	if want.CommandWindows != "" && e.CommandWindows == "" {
		out = append(out, "it has no commandWindows: "+agent+" runs the command in PowerShell here, which echoes a quoted path instead of running it")
	}
	return out
}

// checkAllHooksOff looks for a top-level disableAllHooks: true in files,
// the first of which is the user settings already read as user (an agent
// in Claude Code's hook format runs none of its hooks then).
func (d *doctor) checkAllHooksOff(check, agentName string, user *configs.Doc, files []string) {
	var on []string
	for i, path := range files {
		doc := user
		if i > 0 {
			b, err := os.ReadFile(path)
			if err != nil {
				continue
			}
			if doc, err = configs.ParseDoc(ownfiles.Tilde(path), b, false); err != nil {
				d.add(StatusWarn, check, "%v", err)
				continue
			}
		}
		var s struct {
			DisableAllHooks bool `json:"disableAllHooks"`
		}
		if doc != nil && doc.Value(&s) == nil && s.DisableAllHooks {
			on = append(on, ownfiles.Tilde(path))
		}
	}
	if len(on) > 0 {
		d.add(StatusFail, check, "disableAllHooks is true in %s: %s runs no hooks, runaway included; remove it", strings.Join(on, ", "), agentName)
		return
	}
	d.add(StatusOK, check, "disableAllHooks is not set")
}

// checkProcessStop says how a stop (at the cap, or a loop or failure
// wire's) ends an agent whose hook answer cannot end its turn: runaway interrupts the agent's process that
// ran the hook (what comes of it: how), or, where it cannot, denies every
// call while the agent goes on asking the model.
func (d *doctor) checkProcessStop(check, name, program, how string) {
	p, _ := configs.LoadPolicy(d.paths.Config, os.Getenv)
	switch {
	case !p.EndAgent:
		d.add(StatusOK, check, "end_agent is off: at the cap (and at a loop or failure stop) every call is denied, and %s goes on asking the model after each deny", name)
	case runtime.GOOS != "linux":
		d.add(StatusWarn, check, "runaway finds the %s process that ran its hook through /proc, which %s lacks: at the cap (and at a loop or failure stop) every call is denied, and %s goes on asking the model after each deny", program, runtime.GOOS, name)
	default:
		d.add(StatusOK, check, "at the cap, and at a loop or failure stop, runaway interrupts the %s process that ran the hook (SIGINT to that process only, never one found by name; end_agent: false turns it off): %s", program, how)
	}
}

// sampleCall asks this runaway's hook for its sample call of the agent
// and the session file that goes with it (runaway hook --self-test), and
// writes that file at transcript: the installer knows no agent's input.
func (d *doctor) sampleCall(id agent.ID, transcript string) ([]byte, error) {
	self := d.opts.Executable
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	out, err := exec.Command(self, "hook", "--self-test", string(id), transcript).Output()
	var st struct {
		Call       json.RawMessage `json:"call"`
		Transcript string          `json:"transcript"`
	}
	if err != nil || json.Unmarshal(out, &st) != nil || len(st.Call) == 0 {
		return nil, fmt.Errorf("%s gave no sample call of %s (%v)", self, id, err)
	}
	if st.Transcript != "" {
		if err := os.WriteFile(transcript, []byte(st.Transcript), 0o600); err != nil {
			return nil, err
		}
	}
	return st.Call, nil
}

// liveTest runs the entry's command as the agent would: through the
// shell, with a sample call on stdin, in a throwaway state folder.
func (d *doctor) liveTest(h Harness, prefix string, e configs.Entry) {
	check := prefix + "-live"
	tmp, err := os.MkdirTemp("", "runaway-doctor-")
	if err != nil {
		d.add(StatusFail, check, "%v", err)
		return
	}
	defer os.RemoveAll(tmp)
	call, err := d.sampleCall(h.ID, filepath.Join(tmp, "transcript.jsonl"))
	if err != nil {
		d.add(StatusFail, check, "%v", err)
		return
	}
	limit := time.Duration(e.Timeout * float64(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	// Without its `|| true` the command shows what that hides from the
	// agent: a missing binary or a crash.
	command := strings.TrimSpace(e.Command)
	if e.OrTrue {
		command = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(command, "true")), "||"))
	}
	cmd, via := exec.CommandContext(ctx, d.shell, "-c", command), d.shell
	if e.ExecForm || d.platform.OS == "windows" {
		// No shell in exec form; on Windows the agents' PowerShell and Git
		// Bash are theirs to find, so the program is run as they would.
		cmd, via = exec.CommandContext(ctx, e.Program, e.Args...), "no shell"
	}
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(tmp, "state"))
	cmd.Stdin = bytes.NewReader(call)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A hook killed at the timeout may leave children holding stdout.
	cmd.WaitDelay = 200 * time.Millisecond
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start).Round(time.Millisecond)
	if ctx.Err() != nil {
		d.add(StatusFail, check, "no answer within %s's timeout of %s", h.Name, limit)
		return
	}
	if err != nil {
		why := firstLine(stderr.String())
		if why == "" {
			why = "no message"
		}
		d.add(StatusFail, check, "the hook failed (%v: %s); the entry's || true lets the agent go on unguarded", err, why)
		return
	}
	answer := bytes.TrimSpace(stdout.Bytes())
	if len(answer) > 0 && !json.Valid(answer) {
		d.add(StatusFail, check, "the answer is not JSON (%q): %s would ignore or reject it", firstLine(string(answer)), h.Name)
		return
	}
	if logged := ownfiles.LogLines(filepath.Join(tmp, "state", "runaway", ownfiles.ErrorLogName)); len(logged) > 0 {
		d.add(StatusFail, check, "the hook answered but logged an error: %s", logged[len(logged)-1])
		return
	}
	what := "no decision"
	if len(answer) > 0 {
		what = string(answer)
	}
	d.add(StatusOK, check, "a sample call through %s answered in %s (%s), timeout %s", via, took, what, limit)
}

// wiredChecks is what an agent's own checks of its settings file get:
// the file, its content, runaway's entries by event, and the entries
// before a tool call and before a prompt (promptOK: that one is sound).
type wiredChecks struct {
	sf            configs.SettingsFile
	doc           *configs.Doc
	byEvent       map[string][]configs.Entry
	entry, prompt configs.Entry
	promptOK      bool
}

// checkFound is the check of an agent runaway does not wire into.
func (d *doctor) checkFound(h Harness) {
	if !d.agents[h.ID].Found {
		d.add(StatusOK, string(h.ID), "not installed")
		return
	}
	d.add(StatusOK, string(h.ID), "found; %s", h.Why)
}

// checkProtection says, per wired agent, how well runaway's files are kept
// out of the agent's reach: by the tamper wire alone (a guard rail that
// reads each call) or also by the agent itself (its own rules or sandbox).
func (d *doctor) checkProtection() {
	if d.rec == nil {
		return
	}
	for _, f := range d.rec.Files {
		if f.Project {
			continue
		}
		h, _ := HarnessByID(f.Harness)
		switch {
		case h.protection != nil:
			h.protection(d, f)
		default:
			d.add(StatusOK, string(f.Harness)+"-protection", "guard rail only: runaway's tamper wire reads each call; %s has no rules runaway can write to keep its tools away from runaway's files", h.Name)
		}
	}
}

// recordedSettings are the settings files setup recorded, with the files
// beside each that hold the agent's hook switches (as setup protects them).
func (d *doctor) recordedSettings() []string {
	var out []string
	for _, f := range d.rec.Files {
		out = append(out, f.Path)
		if h := d.agents[f.Harness]; h.besides != nil {
			out = append(out, h.besides(f.Path)...)
		}
	}
	return out
}

// readJSONC reads a JSON-with-comments file into a map; a missing file is
// (nil, nil).
func readJSONC(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := configs.ParseDoc(ownfiles.Tilde(path), b, false)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := doc.Value(&m); err != nil {
		return nil, fmt.Errorf("reading %s: %w", ownfiles.Tilde(path), err)
	}
	return m, nil
}
