package tamper

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"github.com/runaway-guard/runaway/ownfiles"
)

// git commands that put files back as a repository has them (checkout,
// restore, stash, reset --hard, pull…) or delete what it does not track
// (clean): denied when they would do that to a protected file the
// repository tracks (or, for clean, does not), such as a dotfiles
// repository holding ~/.claude/settings.json from before runaway's entry.

// git checks one git command.
func (sh *shell) git(args []string) {
	dir := sh.cwd
	// Global options before the subcommand.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		a := args[0]
		args = args[1:]
		switch {
		case a == "-C" && len(args) > 0:
			dir = sh.t.abs(args[0], dir)
			args = args[1:]
		case a == "-c" && len(args) > 0:
			key, value, _ := strings.Cut(args[0], "=")
			sh.gitConfig(key, value)
			args = args[1:]
		case (a == "--git-dir" || a == "--work-tree" || a == "--namespace") && len(args) > 0:
			args = args[1:]
		}
	}
	if len(args) == 0 {
		return
	}
	sh.gitRuns(args[0], args[1:])
	if dir == "" || !known(dir) {
		return
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "checkout", "restore", "stash", "reset", "clean", "rm", "mv", "switch", "read-tree", "checkout-index":
	default:
		return
	}
	if dryRun(rest) || sub == "clean" && hasShortFlag(rest, 'n') {
		return
	}
	top := repoTop(filepath.Clean(sh.t.realPath(dir)))
	if top == "" {
		return
	}
	files := sh.t.heldIn(top)
	if len(files) == 0 {
		return
	}
	index := readIndex(top)
	for _, f := range files {
		rel, err := filepath.Rel(top, f.real)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		tracked, at := tracks(index, rel)
		if tracked && sub != "rm" && sub != "mv" && unmodified(index, at, f.real) {
			continue // as the repository has it: putting it back changes nothing
		}
		if sh.gitTouches(sub, rest, dir, top, f.real, rel, tracked) {
			sh.t.deny(&finding{action: "run `git " + sub + "` over " + f.kind.noun(), path: f.path, why: "which would put back or remove the copy in its repository"})
			return
		}
	}
}

// gitTouches reports whether `git sub rest` run in dir puts back or
// removes the protected file p (rel: its path in the repository).
func (sh *shell) gitTouches(sub string, rest []string, dir, top, p, rel string, tracked bool) bool {
	specs := pathspecs(sub, rest, dir, sh.t)
	covered := len(specs) == 0
	for _, s := range specs {
		if under(p, filepath.Clean(s)) {
			covered = true
		}
	}
	switch sub {
	case "clean":
		if tracked || !covered {
			return false
		}
		return hasShortFlag(rest, 'x') || hasShortFlag(rest, 'X') || !ignored(top, rel)
	case "stash":
		if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") && rest[0] != "push" && rest[0] != "save" {
			return tracked && (rest[0] == "pop" || rest[0] == "apply")
		}
		untracked := hasShortFlag(rest, 'u') || hasShortFlag(rest, 'a') || contains(rest, "--include-untracked") || contains(rest, "--all")
		return covered && (tracked || untracked && !ignored(top, rel) || hasShortFlag(rest, 'a') || contains(rest, "--all"))
	case "reset":
		return tracked && (contains(rest, "--hard") || contains(rest, "--merge") || contains(rest, "--keep"))
	case "checkout", "switch":
		if len(specs) > 0 {
			return tracked && covered
		}
		return tracked && (hasShortFlag(rest, 'f') || contains(rest, "--force") || contains(rest, "--discard-changes"))
	case "restore":
		if contains(rest, "--staged") && !contains(rest, "--worktree") {
			return false
		}
		return tracked && len(specs) > 0 && covered
	case "rm", "mv":
		return len(specs) > 0 && covered
	}
	// pull, merge, rebase, am, apply…: may rewrite any tracked file.
	return tracked
}

// pathspecs are the paths a git command names (after --, or the
// operands that exist as files), absolute.
func pathspecs(sub string, args []string, dir string, t *checker) []string {
	var out []string
	after := false
	for i, a := range args {
		switch {
		case a == "--":
			after = true
			continue
		case !after && strings.HasPrefix(a, "-"):
			continue
		}
		p := t.abs(a, dir)
		if p == "" || !known(p) {
			continue
		}
		if after || a == "." || a == ":/" {
			out = append(out, p)
			continue
		}
		if sub == "checkout" && i == 0 {
			if _, err := os.Lstat(p); err != nil {
				continue // a branch or commit
			}
		}
		if _, err := os.Lstat(p); err == nil || sub == "restore" || sub == "rm" {
			out = append(out, p)
		}
	}
	return out
}

// heldIn lists the protected files inside the folder top that matter to
// git: runaway's own files and the settings files that hold its entry.
func (t *checker) heldIn(top string) []protectedPath {
	var out []protectedPath
	for _, pp := range t.inside(top) {
		if pp.kind.owned() || holdsEntry(pp.kind, pp.real) || pp.kind.heldByGit {
			out = append(out, pp)
		}
	}
	return out
}

// repoTop is the folder holding .git at or above dir ("" when none).
func repoTop(dir string) string {
	for d, i := dir, 0; i < 64; d, i = filepath.Dir(d), i+1 {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return ""
}

// maxIndexRead bounds the part of .git/index read; a bigger index counts
// as tracking everything.
const maxIndexRead = 32 << 20

// readIndex reads a repository's index (nil: unknown, as if every file
// were tracked).
func readIndex(top string) []byte {
	gitDir := filepath.Join(top, ".git")
	if data, err := os.ReadFile(gitDir); err == nil {
		// A worktree or submodule: "gitdir: PATH".
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
			if !filepath.IsAbs(d) {
				d = filepath.Join(top, d)
			}
			gitDir = d
		}
	}
	f, err := ownfiles.OpenRegular(filepath.Join(gitDir, "index"), os.O_RDONLY, 0)
	if err != nil {
		return []byte{} // no index: nothing tracked
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() > maxIndexRead {
		return nil
	}
	data := make([]byte, fi.Size())
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil
	}
	// Version 4 compresses paths: not read.
	if len(data) < 12 || string(data[:4]) != "DIRC" || data[7] > 3 {
		return nil
	}
	return data
}

// tracks reports whether the index lists rel, and where its path starts
// (-1 when not known). An entry's path ends in a NUL and follows its
// 2-byte flags, never a '/'.
func tracks(index []byte, rel string) (bool, int) {
	if index == nil {
		return true, -1
	}
	needle := []byte(filepath.ToSlash(rel) + "\x00")
	for i := 0; ; {
		j := bytes.Index(index[i:], needle)
		if j < 0 {
			return false, -1
		}
		if at := i + j; at > 0 && index[at-1] != '/' {
			return true, at
		}
		i += j + 1
	}
}

// unmodified reports whether the file at p has the size and modification
// time its index entry (whose path starts at at) recorded, as git itself
// tells an unchanged file.
func unmodified(index []byte, at int, p string) bool {
	// A version 2 entry: ctime, mtime (8 bytes each), dev, ino, mode, uid,
	// gid, size (4 each), the object id (20), flags (2), then the path;
	// version 3 may put 2 more bytes of flags before the path.
	for _, head := range []int{62, 64} {
		start := at - head
		if start < 12 {
			continue
		}
		e := index[start:at]
		flags := be16(e[60:62])
		extended := flags&0x4000 != 0
		if extended != (head == 64) || int(flags&0xfff) != nameLen(index[at:]) {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return false
		}
		return int64(be32(e[8:12])) == fi.ModTime().Unix() && int64(be32(e[36:40])) == fi.Size()&0xffffffff
	}
	return false
}

// nameLen is the length of the NUL-terminated name at the start of b.
func nameLen(b []byte) int {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return min(i, 0xfff)
	}
	return -1
}

func be16(b []byte) uint16 { return uint16(b[0])<<8 | uint16(b[1]) }
func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// ignored reports whether the repository's top .gitignore names rel, its
// name or a folder it lies in (the common cases; when unsure, not ignored).
func ignored(top, rel string) bool {
	data, err := readSmall(filepath.Join(top, ".gitignore"))
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	for line := range strings.Lines(data) {
		l := strings.TrimSpace(line)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "!") {
			continue
		}
		l = strings.TrimSuffix(strings.TrimPrefix(l, "/"), "/")
		if l == rel || l == filepath.Base(rel) || strings.HasPrefix(rel, l+"/") {
			return true
		}
		if ok, _ := filepath.Match(l, rel); ok {
			return true
		}
	}
	return false
}

func hasShortFlag(args []string, f byte) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f) >= 0 {
			return true
		}
	}
	return false
}

func contains(args []string, s string) bool {
	for _, a := range args {
		if a == s {
			return true
		}
	}
	return false
}

// git as a runner: what its config and its subcommands' options run
// through a shell (git-config(1), git-rebase(1), git-filter-branch(1),
// git-grep(1), git-submodule(1), git-bisect(1), git-difftool(1)) is run
// through the reader, as git would.

// gitRuns judges the commands a subcommand's options run.
func (sh *shell) gitRuns(sub string, rest []string) {
	script := func(vals []string) {
		for _, v := range vals {
			sh.sub().script(v)
		}
	}
	switch sub {
	case "rebase":
		script(optionValues(rest, "--exec", "-x"))
	case "filter-branch":
		script(optionValues(rest, "--tree-filter", "--index-filter", "--msg-filter", "--commit-filter",
			"--env-filter", "--parent-filter", "--tag-name-filter"))
	case "grep":
		// -O and --open-files-in-pager take their pager only attached.
		for _, a := range rest {
			if v, ok := strings.CutPrefix(a, "--open-files-in-pager="); ok {
				script([]string{v})
			} else if v, ok := strings.CutPrefix(a, "-O"); ok && v != "" && !strings.HasPrefix(a, "--") {
				script([]string{v})
			}
		}
	case "difftool", "mergetool":
		script(optionValues(rest, "--extcmd", "-x"))
	case "submodule":
		if ops := operands(rest, ""); len(ops) > 1 && ops[0] == "foreach" {
			script(ops[1:2])
		}
	case "bisect":
		if len(rest) > 1 && rest[0] == "run" {
			sh.sub().call(rest[1:], nil, nil)
		}
	case "config":
		// git config [--global] KEY VALUE, git config set KEY VALUE: what
		// it writes runs at the next git command.
		ops := operands(rest, "f")
		if len(ops) > 0 && (ops[0] == "set" || ops[0] == "add") {
			ops = ops[1:]
		}
		if len(ops) >= 2 {
			sh.gitConfig(ops[0], ops[1])
		}
	}
}

// gitConfig judges a config value git runs: an alias starting with !, an
// editor, pager, ssh command, fsmonitor, filter or diff driver, credential
// helper; core.hooksPath's hooks.
func (sh *shell) gitConfig(key, value string) {
	low := strings.ToLower(key)
	if !known(value) {
		if gitRunsKey(low) {
			sh.opaque("git runs " + key + ", and runaway cannot know its value here")
		}
		return
	}
	switch {
	case strings.HasPrefix(low, "alias."):
		if v, ok := strings.CutPrefix(strings.TrimSpace(value), "!"); ok {
			sh.sub().script(v)
		}
	case low == "credential.helper":
		if v, ok := strings.CutPrefix(strings.TrimSpace(value), "!"); ok {
			sh.sub().script(v)
		} else if strings.HasPrefix(value, "/") {
			sh.sub().script(value)
		}
	case low == "core.fsmonitor":
		if b := strings.ToLower(value); b != "true" && b != "false" && b != "" {
			sh.sub().script(value)
		}
	case low == "core.hookspath":
		sh.gitHooks(value)
	case gitRunsKey(low):
		sh.sub().script(value)
	}
}

// gitRunsKey: a config key whose value git runs through a shell.
func gitRunsKey(low string) bool {
	switch low {
	case "core.editor", "core.pager", "core.sshcommand", "core.askpass", "core.gitproxy", "core.fsmonitor",
		"core.hookspath", "sequence.editor", "diff.external", "gpg.program", "credential.helper",
		"interactive.difffilter", "uploadpack.packobjectshook":
		return true
	}
	for _, p := range []string{"alias.", "pager.", "filter.", "diff.", "merge.", "gpg.", "remote.", "difftool.", "mergetool."} {
		if strings.HasPrefix(low, p) {
			last := low[strings.LastIndexByte(low, '.')+1:]
			switch last {
			case "clean", "smudge", "process", "command", "textconv", "driver", "program", "cmd", "receivepack", "uploadpack":
				return true
			}
			if p == "alias." || p == "pager." {
				return true
			}
		}
	}
	return false
}

// gitHooks judges the hooks in a folder core.hooksPath names: the ones
// the line wrote, and the ones there now.
func (sh *shell) gitHooks(dir string) {
	p := sh.abs(dir)
	if p == "" || !known(p) {
		sh.opaque("core.hooksPath names a folder of hooks git runs, and runaway cannot know which")
		return
	}
	p = filepath.Clean(p)
	for f, text := range sh.t.written {
		if filepath.Dir(f) == p {
			sh.sub().script(text)
		}
	}
	es, err := sh.t.readDir(p)
	if err != nil {
		return
	}
	for _, e := range es {
		if e.Type().IsRegular() {
			if _, ok := sh.t.written[filepath.Join(p, e.Name())]; !ok {
				sh.sub().scriptFile(filepath.Join(p, e.Name()), nil)
			}
		}
	}
}
