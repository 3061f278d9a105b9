package tamper

import (
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/configs"
)

// Commands that run another command: sudo, env, xargs, timeout, nice,
// setsid, script -c, watch, parallel and the like. The wire looks through
// them at the command they run.

// unwrap drops the commands that run another command (sudo, env, xargs,
// timeout, nice, setsid, script -c, watch…) and their options; env's
// assignments go to cmdEnv, and the command line given as one string
// (env -S, script -c, watch, su -c) is checked as a script.
func (sh *shell) unwrap(args []string, cmdEnv map[string]string, in *stdin) ([]string, map[string]string, bool, *stdin) {
	viaXargs := false
	for len(args) > 0 && !sh.t.done() {
		name := filepath.Base(args[0])
		values := ""
		switch name {
		case "sudo", "doas":
			values = "ugCDhprtUTc"
		case "env":
			values = "uCS"
		case "nice", "renice":
			values = "n"
		case "timeout", "gtimeout":
			values = "sk"
		case "xargs":
			values = "IdEnLPsai"
		case "ionice":
			values = "cnpP"
		case "chrt", "taskset":
			values = "p"
		case "strace", "ltrace":
			values = "oeEpPsuIabX"
		case "unshare", "nsenter":
			values = "tSGpmnuiUC"
		case "watch":
			values = "nd"
		case "script":
			values = "cTtIOBEm"
		case "su", "runuser":
			values = "cgGsw"
		case "exec":
			values = "a"
		case "stdbuf", "gstdbuf":
			values = "ioe"
		case "setsid", "nohup", "time", "chronic", "unbuffer", "command", "builtin", "busybox", "caffeinate",
			"then", "do", "else", "elif", "if", "while", "until", "!", "{", "}", "catchsegv", "proxychains", "tsocks",
			"firejail", "faketime", "fakeroot", "sem", "parallel", "flock", "chroot":
		default:
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
			case strings.HasPrefix(a, "-") && len(a) > 1 && name != "parallel":
				args = args[1:]
				// In a cluster (-qc) the last letter may take the value.
				last := a[len(a)-1]
				short := !strings.HasPrefix(a, "--") && strings.IndexByte(values, last) >= 0
				if short && len(args) > 0 {
					switch {
					case name == "env" && last == 'S', (name == "script" || name == "su" || name == "runuser") && last == 'c':
						line = append(line, args[0])
					case name == "env" && last == 'C':
						sh.chdir(sh.abs(args[0]))
					case name == "xargs" && last == 'a':
						in = sh.fileText(args[0])
					}
					args = args[1:]
				} else if v, ok := strings.CutPrefix(a, "--split-string="); ok && name == "env" {
					line = append(line, v)
				} else if v, ok := strings.CutPrefix(a, "--command="); ok {
					line = append(line, v)
				}
				continue
			case name == "env" && strings.Contains(a, "=") && isName(a[:strings.IndexByte(a, '=')]):
				if cmdEnv == nil {
					cmdEnv = map[string]string{}
				}
				k, v, _ := strings.Cut(a, "=")
				cmdEnv[k] = v
				args = args[1:]
				continue
			case (name == "sudo" || name == "doas") && strings.Contains(a, "=") && isName(a[:strings.IndexByte(a, '=')]):
				args = args[1:]
				continue
			}
			break
		}
		switch name {
		case "timeout", "gtimeout", "chrt", "taskset", "flock", "chroot", "sem":
			if len(args) > 0 {
				if name == "flock" {
					sh.pathArg(args[0], opWrite, false)
				}
				args = args[1:] // the duration, priority, mask or lock file
			}
		case "watch", "su", "runuser":
			if len(args) > 0 && name == "watch" {
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
