package tamper

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/runaway-guard/runaway/ownfiles"
)

// Which paths are protected, and how a path a call names is resolved the
// way the kernel would: symlinks before "..", /proc/self/cwd and root,
// and existing files compared by device and inode (hard links).

// protectedPath is one path the wire guards, lexically and as resolved.
type protectedPath struct {
	path, real string
	kind       *fileKind
	dir        bool // a folder: everything under it is protected too
	project    bool // the call's project's own settings
	exists     bool // the file is there
}

// checker holds what one call is checked against; the protected paths
// are worked out only when a call names a path it writes.
type checker struct {
	getenv    func(string) string
	configDir string
	stateDir  string
	binPath   string
	cwd       string

	home      string
	resolved  bool
	protected []protectedPath
	needles   []string // path fragments that name protected files in code
	reals     map[string]string
	lstats    map[string]fs.FileInfo
	dirs      map[string][]fs.DirEntry // readDir's answers
	same      []namedInfo              // the protected files that exist, for hard links
	copies    []string                 // where the line copied runaway's program
	links     map[string]string        // symlinks the line makes: path → target
	written   map[string]string        // files the line writes with known content
	procs     int                      // process substitutions so far
	checked   int                      // path arguments checked so far

	deadline  time.Time
	steps     int
	timedOut  bool
	found     *finding
	asked     *finding
	unsureWhy string
	// opaqueWhy: what bash would run that the reader cannot know (see
	// evaluates.go); opaqueVals: the values the line had set up then.
	opaqueWhy  string
	opaqueVals []string
}

func newChecker(g Guarded, cwd string, deadline time.Time) *checker {
	t := &checker{
		getenv:    g.Getenv,
		configDir: g.ConfigDir,
		stateDir:  g.StateDir,
		binPath:   g.BinPath,
		cwd:       cwd,
		deadline:  deadline,
	}
	if t.getenv == nil {
		t.getenv = os.Getenv
	}
	return t
}

func (t *checker) homeDir() string {
	if t.home == "" {
		t.home = filepath.Clean(t.getenv("HOME"))
		if !filepath.IsAbs(t.home) {
			t.home = ""
		}
	}
	return t.home
}

// envDir is $name, or its default under HOME.
func (t *checker) envDir(name string) string {
	if v := t.getenv(name); filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	if h := t.homeDir(); h != "" {
		d, _ := envDefault(name)
		return filepath.Join(h, d)
	}
	return ""
}

// resolve works out the protected paths, once per call.
func (t *checker) resolve() {
	if t.resolved {
		return
	}
	t.resolved = true
	add := func(p string, kind *fileKind, dir, project bool) {
		if !filepath.IsAbs(p) {
			return
		}
		p = filepath.Clean(p)
		_, err := os.Lstat(p)
		t.protected = append(t.protected, protectedPath{path: p, real: t.realPath(p), kind: kind, dir: dir, project: project, exists: err == nil})
	}
	add(t.configDir, ownConfig, true, false)
	add(t.stateDir, ownState, true, false)
	add(t.binPath, ownBinary, false, false)
	if exe, err := os.Executable(); err == nil {
		add(exe, ownBinary, false, false)
	}
	// The agents' settings files, then the start-up files: a reason names
	// the first one a folder holds.
	agentFiles := func(startup bool) {
		for _, a := range agents {
			for _, f := range a.files {
				if d := t.envDir(f.dirEnv); d != "" && (f.kind == startupFile) == startup {
					add(filepath.Join(d, f.name), f.kind, false, false)
				}
			}
		}
	}
	agentFiles(false)
	for _, f := range startupFiles {
		if d := t.envDir(f.dirEnv); d != "" {
			add(filepath.Join(d, f.name), startupFile, false, false)
		}
	}
	agentFiles(true)
	if p := t.getenv("BASH_ENV"); filepath.IsAbs(p) {
		add(p, startupFile, false, false)
	}
	// The project's own settings count when it has them (rm -rf .claude).
	if d := t.cwd; filepath.IsAbs(d) {
		d = filepath.Clean(d)
		for _, a := range agents {
			for _, f := range a.anywhere {
				if f.inProject {
					add(filepath.Join(d, f.name), f.kind, false, true)
				}
			}
		}
	}
	home := t.homeDir()
	seen := map[string]bool{}
	for _, p := range t.protected {
		if p.kind.env {
			continue // ".env", ".profile": words ordinary code is full of
		}
		for _, s := range []string{p.path, p.real} {
			if home != "" && strings.HasPrefix(s, home+"/") {
				s = s[len(home)+1:]
			}
			if !seen[s] {
				seen[s] = true
				t.needles = append(t.needles, s)
			}
		}
	}
	for _, a := range agents {
		for _, f := range a.anywhere {
			if f.inProject {
				t.needles = append(t.needles, f.name)
			}
		}
	}
}

// abs makes p absolute against dir without cleaning it: ".." is resolved
// by realPath after the symlinks before it, as the kernel does. A ~ at
// the start is the home folder (the agents expand it in file paths too);
// /proc/self/cwd is dir. "" when p or dir is unknown.
func (t *checker) abs(p, dir string) string {
	if p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		h := t.homeDir()
		if h == "" {
			return ""
		}
		p = h + p[1:]
	}
	if rest, ok := procLink(p, "cwd"); ok {
		if dir == "" {
			return ""
		}
		p = dir + "/" + rest
	} else if rest, ok := procLink(p, "root"); ok {
		p = "/" + rest
	}
	if !strings.HasPrefix(p, "/") {
		if !strings.HasPrefix(dir, "/") {
			return ""
		}
		p = dir + "/" + p
	}
	return p
}

// procLink: /proc/self/NAME/rest, /proc/PID/NAME/rest (any process of the
// line: its own), /proc/thread-self/NAME/rest.
func procLink(p, name string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return "", false
	}
	who, rest, _ := strings.Cut(rest, "/")
	if who != "self" && who != "thread-self" && !isDigits(who) && who != unknownPart {
		return "", false
	}
	link, rest, _ := strings.Cut(rest, "/")
	return rest, link == name
}

// realPath resolves p as the kernel would: each component in turn,
// following symlinks (their own ".." included) as far as the path exists,
// lexically past that. Answers are remembered for the call.
func (t *checker) realPath(p string) string {
	if r, ok := t.reals[p]; ok {
		return r
	}
	if t.reals == nil {
		t.reals = map[string]string{}
	}
	parts := strings.Split(p, "/")
	cur, missing, hops := "/", false, 0
	for i := 0; i < len(parts); i++ {
		part := parts[i]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		target, isLink := t.links[next] // a symlink the line itself makes
		if !isLink && !missing && known(part) {
			fi, err := t.lstat(next)
			missing = err != nil
			if err == nil && fi.Mode()&os.ModeSymlink != 0 {
				target, err = os.Readlink(next)
				isLink = err == nil
			}
		}
		if isLink && hops < 40 {
			// Go on from the link's folder (or /) with its target's parts.
			hops++
			if strings.HasPrefix(target, "/") {
				cur = "/"
			}
			parts = append(strings.Split(target, "/"), parts[i+1:]...)
			i = -1
			continue
		}
		cur = next
	}
	t.reals[p] = cur
	return cur
}

func (t *checker) lstat(p string) (fs.FileInfo, error) {
	if fi, ok := t.lstats[p]; ok {
		if fi == nil {
			return nil, fs.ErrNotExist
		}
		return fi, nil
	}
	if t.lstats == nil {
		t.lstats = map[string]fs.FileInfo{}
	}
	fi, err := os.Lstat(p)
	t.lstats[p] = fi
	return fi, err
}

// under reports whether p is dir or inside it.
func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/") || dir == "/"
}

// classify tells what p (absolute) is to runaway: the kind of the
// protected path it is or lies in, lexically, as the kernel resolves it,
// or as the same file under another name.
func (t *checker) classify(p string) *fileKind {
	if p == "" {
		return notProtected
	}
	t.resolve()
	clean := filepath.Clean(p)
	if k := t.match(clean); k != notProtected {
		return k
	}
	if known(p) {
		if real := t.realPath(p); real != clean {
			if k := t.match(real); k != notProtected {
				return k
			}
		}
		return t.sameFile(p)
	}
	return notProtected
}

// classifyName is classify for removing or moving p: by its name, with
// its folder resolved but not a symlink at its end (rm takes the link,
// not what it points to), and not by what file is there (removing a hard
// link leaves the file).
func (t *checker) classifyName(p string) *fileKind {
	t.resolve()
	if k := t.match(filepath.Clean(p)); k != notProtected || !known(p) {
		return k
	}
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") {
		return t.match(t.realPath(p)) // through the link
	}
	// The folder as the kernel walks it: a symlink before ".." is followed
	// first (link/../runaway is the link target's sibling, not ./runaway).
	dir, base := splitName(p)
	if base == ".." {
		return t.match(t.realPath(p))
	}
	return t.match(filepath.Join(t.realPath(dir), base))
}

// splitName splits p at its last element without cleaning it: "a/l/../b"
// is "a/l/.." and "b".
func splitName(p string) (dir, base string) {
	p = strings.TrimRight(p, "/")
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ".", p
	}
	if i == 0 {
		return "/", p[1:]
	}
	return p[:i], p[i+1:]
}

func (t *checker) match(p string) *fileKind {
	for _, pp := range t.protected {
		for _, q := range []string{pp.path, pp.real} {
			if p == q || pp.dir && under(p, q) {
				return pp.kind
			}
		}
	}
	for _, a := range agents {
		for _, f := range a.anywhere {
			if strings.HasSuffix(p, "/"+f.name) {
				return f.kind
			}
		}
	}
	if d := t.envDir("XDG_CONFIG_HOME"); d != "" && filepath.Dir(p) == filepath.Join(d, environmentD) && strings.HasSuffix(p, ".conf") {
		return startupFile
	}
	return notProtected
}

// sameFile: an existing regular file that is a protected file under
// another name (a hard link).
func (t *checker) sameFile(p string) *fileKind {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || links(fi) < 2 {
		return notProtected
	}
	if t.same == nil {
		t.same = []namedInfo{}
		for _, pp := range t.protected {
			switch {
			case !pp.exists:
			case pp.dir:
				t.sameIn(pp.real, 2) // runaway's folders: state/sessions/*.json
			default:
				if f, err := os.Stat(pp.real); err == nil {
					t.same = append(t.same, namedInfo{f, pp.real})
				}
			}
		}
	}
	for _, f := range t.same {
		if os.SameFile(fi, f.FileInfo) {
			return t.match(f.path)
		}
	}
	return notProtected
}

// namedInfo is a protected file's info and its path.
type namedInfo struct {
	fs.FileInfo
	path string
}

func (t *checker) sameIn(dir string, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for i, e := range entries {
		if i == 2000 {
			return
		}
		p := filepath.Join(dir, e.Name())
		if e.Type().IsRegular() {
			if f, err := os.Stat(p); err == nil {
				t.same = append(t.same, namedInfo{f, p})
			}
		} else if e.IsDir() && depth > 1 {
			t.sameIn(p, depth-1)
		}
	}
}

// inside lists the protected paths that exist and lie inside p.
func (t *checker) inside(p string) []protectedPath {
	if p == "" || !known(p) {
		return nil
	}
	t.resolve()
	clean, real := filepath.Clean(p), t.realPath(p)
	var out []protectedPath
	for _, pp := range t.protected {
		if !pp.exists {
			continue
		}
		for _, q := range []string{pp.path, pp.real} {
			if under(q, clean) || under(q, real) {
				out = append(out, pp)
				break
			}
		}
	}
	return out
}

// insideName is inside for removing p: a symlink at its end is removed,
// not followed (rm -rf link leaves what it points to).
func (t *checker) insideName(p string) []protectedPath {
	if p == "" || !known(p) {
		return nil
	}
	if strings.HasSuffix(p, "/") || strings.HasSuffix(p, "/.") {
		return t.inside(p)
	}
	if fi, err := t.lstat(filepath.Clean(p)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return t.inside(p)
	}
	clean := filepath.Clean(p)
	dir, base := splitName(p)
	named := filepath.Join(t.realPath(dir), base)
	var out []protectedPath
	for _, pp := range t.protected {
		if pp.exists && (under(pp.path, clean) || under(pp.real, named)) {
			out = append(out, pp)
		}
	}
	return out
}

// maxSettingsRead bounds what the wire reads of a settings file.
const maxSettingsRead = 4 << 20

// readSmall reads a settings file a call names. Anything but a regular file
// is refused: opening a FIFO blocks until a writer comes, and a device such
// as /dev/tty waits for the person.
func readSmall(p string) (string, error) {
	f, err := ownfiles.OpenRegular(p, os.O_RDONLY, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsRead+1))
	if err != nil {
		return "", err
	}
	if len(data) > maxSettingsRead {
		return "", fmt.Errorf("%s is larger than %d bytes", p, maxSettingsRead)
	}
	return string(data), nil
}

// remember notes a file the line writes with known content (a script
// it then runs, a settings file it then hands an agent).
func (t *checker) remember(p, text string) {
	if t.written == nil {
		t.written = map[string]string{}
	}
	t.written[filepath.Clean(p)] = text
}

// errBudget ends globbing when the wire's time is spent.
var errBudget = fmt.Errorf("out of time")
