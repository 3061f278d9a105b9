package tamper

import (
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/configs"
)

// Commands that run another command: sudo, env, xargs, timeout, nice,
// setsid, script -c, watch, parallel and the like. The wire looks through
// them at the command they run.

// wrapper is one row of the wrappers table: how a command that runs
// another one is read, up to the command it runs.
type wrapper struct {
	valueFlags string // short options whose value is the next word
	lineFlag   byte   // the option whose value is a whole command line (env -S, su -c)
	chdirFlag  byte   // the option whose value is the folder the command runs in (env -C)
	listFlag   byte   // the option whose value is a file of the words it adds (xargs -a)
	lineLong   string // a long option carrying the command line (env --split-string=)
	assigns    assigns
	skip       int  // words after the options that are not the command (timeout's duration)
	noOptions  bool // its options are not read: what follows is the command (parallel)
	doc        string
}

// assigns says what a wrapper does with NAME=value words before the command.
type assigns uint8

const (
	noAssigns   assigns = iota
	setsEnv             // env: set for the command
	dropsAssign         // sudo, doas: set for the command, not read by the wire
)

// wrappers: sudo, env, xargs, timeout, nice, setsid, script -c, watch and
// the like, and the shell keywords a command follows (if, then, !).
var wrappers = map[string]wrapper{
	"sudo":     {valueFlags: "ugCDhprtUTc", assigns: dropsAssign, doc: "sudo(8): -u USER, -g GROUP, -C NUM, -D DIR, -h HOST, -p PROMPT, -r ROLE, -t TYPE, -U USER, -T TIMEOUT, -c CLASS"},
	"doas":     {valueFlags: "ugCDhprtUTc", assigns: dropsAssign, doc: "doas(1): -u USER, -C CONFIG (read with sudo's letters)"},
	"env":      {valueFlags: "uCS", lineFlag: 'S', chdirFlag: 'C', lineLong: "--split-string=", assigns: setsEnv, doc: "env(1) GNU coreutils: -u NAME, -C DIR, -S STRING"},
	"nice":     {valueFlags: "n", doc: "nice(1) GNU coreutils: -n ADJUSTMENT"},
	"renice":   {valueFlags: "n", doc: "renice(1) util-linux: -n PRIORITY"},
	"timeout":  {valueFlags: "sk", skip: 1, doc: "timeout(1) GNU coreutils: -s SIGNAL, -k DURATION, then DURATION"},
	"gtimeout": {valueFlags: "sk", skip: 1, doc: "timeout(1) GNU coreutils (Homebrew's name)"},
	"xargs":    {valueFlags: "IdEnLPsai", listFlag: 'a', doc: "xargs(1) GNU findutils: -I REPLACE, -d DELIM, -E EOF, -n MAX, -L MAX, -P MAX, -s MAX, -a FILE"},
	"ionice":   {valueFlags: "cnpP", doc: "ionice(1) util-linux: -c CLASS, -n LEVEL, -p PID, -P PGID"},
	"chrt":     {valueFlags: "p", skip: 1, doc: "chrt(1) util-linux: -p, then PRIORITY"},
	"taskset":  {valueFlags: "p", skip: 1, doc: "taskset(1) util-linux: -p, then MASK"},
	"strace":   {valueFlags: "oeEpPsuIabX", doc: "strace(1): -o FILE, -e EXPR, -E VAR, -p PID, -P PATH, -s SIZE, -u USER, -I N, -a COLUMN, -b SYSCALL, -X FORMAT"},
	"ltrace":   {valueFlags: "oeEpPsuIabX", doc: "ltrace(1), read with strace's letters"},
	"unshare":  {valueFlags: "tSGpmnuiUC", doc: "unshare(1) util-linux: -S UID, -G GID, -t TIME; nsenter's letters"},
	"nsenter":  {valueFlags: "tSGpmnuiUC", doc: "nsenter(1) util-linux: -t PID, -S UID, -G GID"},
	"watch":    {valueFlags: "nd", doc: "watch(1) procps: -n SECONDS, -d; the rest is a command line"},
	"script":   {valueFlags: "cTtIOBEm", lineFlag: 'c', doc: "script(1) util-linux: -c COMMAND, -T FILE, -t FILE, -I FILE, -O FILE, -B FILE, -E WHEN, -m MODE"},
	"su":       {valueFlags: "cgGsw", lineFlag: 'c', doc: "su(1) util-linux: -c COMMAND, -g GROUP, -G GROUP, -s SHELL, -w VARS"},
	"runuser":  {valueFlags: "cgGsw", lineFlag: 'c', doc: "runuser(1) util-linux: as su"},
	"exec":     {valueFlags: "a", doc: "bash(1) exec: -a NAME"},
	"stdbuf":   {valueFlags: "ioe", doc: "stdbuf(1) GNU coreutils: -i MODE, -o MODE, -e MODE"},
	"gstdbuf":  {valueFlags: "ioe", doc: "stdbuf(1) GNU coreutils (Homebrew's name)"},
	"flock":    {skip: 1, doc: "flock(1) util-linux: FILE, then the command"},
	"chroot":   {skip: 1, doc: "chroot(8) GNU coreutils: NEWROOT, then the command"},
	"sem":      {skip: 1, doc: "sem(1) GNU parallel"},
	"parallel": {noOptions: true, doc: "parallel(1) GNU parallel: CMD ::: ARGS"},
	"setsid":   {doc: "setsid(1) util-linux"}, "nohup": {doc: "nohup(1) GNU coreutils"},
	"time": {doc: "bash(1) time"}, "chronic": {doc: "chronic(1) moreutils"},
	"unbuffer": {doc: "unbuffer(1) expect"}, "command": {doc: "bash(1) command"},
	"builtin": {doc: "bash(1) builtin"}, "busybox": {doc: "busybox(1)"},
	"caffeinate": {doc: "caffeinate(8) macOS"}, "catchsegv": {doc: "catchsegv(1) glibc"},
	"proxychains": {doc: "proxychains(1)"}, "tsocks": {doc: "tsocks(1)"},
	"firejail": {doc: "firejail(1)"}, "faketime": {doc: "faketime(1)"}, "fakeroot": {doc: "fakeroot(1)"},
	// Shell keywords and grouping a command follows: bash(1) SHELL GRAMMAR.
	"then": {doc: "bash(1)"}, "do": {doc: "bash(1)"}, "else": {doc: "bash(1)"}, "elif": {doc: "bash(1)"},
	"if": {doc: "bash(1)"}, "while": {doc: "bash(1)"}, "until": {doc: "bash(1)"}, "!": {doc: "bash(1)"},
	"{": {doc: "bash(1)"}, "}": {doc: "bash(1)"},
}

// unwrap drops the commands that run another command (sudo, env, xargs,
// timeout, nice, setsid, script -c, watch…) and their options; env's
// assignments go to cmdEnv, and the command line given as one string
// (env -S, script -c, watch, su -c) is checked as a script.
func (sh *shell) unwrap(args []string, cmdEnv map[string]string, in *stdin) ([]string, map[string]string, bool, *stdin) {
	viaXargs := false
	for len(args) > 0 && !sh.t.done() {
		name := filepath.Base(args[0])
		w, ok := wrappers[name]
		if !ok {
			return args, cmdEnv, viaXargs, in
		}
		if name == "command" && len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
			return []string{"command-v", strings.Join(args[2:], " ")}, cmdEnv, false, in
		}
		opts := args[1:]
		args = args[1:]
		// The command line as one string: env -S, script -c, su -c, watch.
		var line []string
		for len(args) > 0 {
			a := args[0]
			switch {
			case a == "--":
				args = args[1:]
			case strings.HasPrefix(a, "-") && len(a) > 1 && !w.noOptions:
				args = args[1:]
				// In a cluster (-qc) the last letter may take the value.
				last := a[len(a)-1]
				short := !strings.HasPrefix(a, "--") && strings.IndexByte(w.valueFlags, last) >= 0
				if short && len(args) > 0 {
					switch last {
					case w.lineFlag:
						line = append(line, args[0])
					case w.chdirFlag:
						sh.chdir(sh.abs(args[0]))
					case w.listFlag:
						in = sh.fileText(args[0])
					}
					args = args[1:]
				} else if v, ok := strings.CutPrefix(a, w.lineLong); ok && w.lineLong != "" {
					line = append(line, v)
				} else if v, ok := strings.CutPrefix(a, "--command="); ok {
					line = append(line, v)
				}
				continue
			case w.assigns != noAssigns && strings.Contains(a, "=") && isName(a[:strings.IndexByte(a, '=')]):
				if w.assigns == setsEnv {
					if cmdEnv == nil {
						cmdEnv = map[string]string{}
					}
					k, v, _ := strings.Cut(a, "=")
					cmdEnv[k] = v
				}
				args = args[1:]
				continue
			}
			break
		}
		if w.skip > 0 && len(args) > 0 {
			if name == "flock" {
				// Holding a session's lock makes every hook answer "no decision".
				sh.pathArg(args[0], opWrite, false)
			}
			args = args[1:] // the duration, priority, mask or lock file
		}
		switch name {
		case "watch":
			if len(args) > 0 {
				line = append(line, strings.Join(args, " "))
				args = nil
			}
		case "script":
			args = nil // script [file]: the file is its log
		case "xargs":
			viaXargs = true
			if in != nil && !in.exact && len(in.from) > 0 && filepath.Base(in.from[0]) == "find" && len(args) > 0 {
				// find … | xargs CMD: as find … -exec CMD {} +.
				sh.find(append(append(append([]string{}, in.from[1:]...), "-exec"), args...))
			}
			args = sh.xargs(opts, args, in)
			in = nil
		case "parallel":
			args = parallelArgs(args)
		}
		if len(line) > 0 {
			s := strings.Join(line, " ")
			if len(args) > 0 {
				q := make([]string, len(args))
				for i, a := range args {
					q[i] = configs.ShellQuote(a)
				}
				s += " " + strings.Join(q, " ")
			}
			sub := sh.sub()
			for k, v := range cmdEnv {
				sub.env.setString(k, v)
			}
			sub.script(s)
			return nil, cmdEnv, viaXargs, in
		}
	}
	return args, cmdEnv, viaXargs, in
}

// xargs: the command and the words it adds, from what it reads (-a FILE,
// a pipe) or, when that is not known, the words of the command feeding it.
func (sh *shell) xargs(opts, args []string, in *stdin) []string {
	var words []string
	if in != nil {
		words = strings.Fields(in.text)
	}
	if len(args) == 0 {
		args = []string{"echo"}
	}
	for i := 0; i < len(opts); i++ {
		if (opts[i] == "-I" || opts[i] == "-i") && i+1 < len(opts) {
			// -I {}: each word replaces {} in the command.
			out := make([]string, 0, len(args)*max(1, len(words)))
			for _, w := range firstN(words, maxLoopItems) {
				for _, a := range args {
					out = append(out, strings.ReplaceAll(a, opts[i+1], w))
				}
			}
			if len(out) == 0 {
				return args
			}
			return out
		}
	}
	return append(append([]string{}, args...), words...)
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// parallelArgs: `parallel CMD ::: ARGS` runs CMD with each of ARGS.
func parallelArgs(args []string) []string {
	for i, a := range args {
		if a == ":::" || a == "::::" {
			return append(append([]string{}, args[:i]...), args[i+1:]...)
		}
	}
	return args
}
