package installer

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/ownfiles"
)

// A plan is a list of edits, one per file. Each edit shows its bytes
// before and after (the diff a person reads first), is checked again just
// before anything is written (still writable, unchanged since it was
// read), and notes in setup's record what remove needs. Remove's edits are
// the inverses, built from that record: hookEdit ↔ unhookEdit (settings
// files), pluginEdit and supportEdit ↔ deleteEdit (OpenCode's plugin and
// what setup put beside it), and Codex's trust records (trust.go).

// Edit is one file a plan writes, deletes or leaves as it is.
type Edit interface {
	// Path is the file.
	Path() string
	// Changed reports whether applying the edit changes anything.
	Changed() bool
	// Diff is the edit as a unified diff ("" when nothing changes).
	Diff() string
	// Warnings are what the person should read about the file.
	Warnings() []string
	// Describe is the plan's line for the edit.
	Describe() string

	change() *fileChange
	// record notes in setup's record what the written edit leaves behind
	// for remove; remove's edits note nothing.
	record(rec *Installed)
}

// fileChange is what every edit is: one file's bytes as read and as they
// will be, and how to write them.
type fileChange struct {
	path          string
	before, after []byte
	snap          configs.Snapshot
	// delete removes the file instead of writing after.
	delete bool
	// own: runaway's own file, written without a backup.
	own bool
	// createDirs are made before the write (listed deepest first);
	// extraDirs after it (OpenCode's node_modules); removeDirs are taken
	// away after the write or delete, each only when empty.
	createDirs, extraDirs, removeDirs []string
	warnings                          []string
}

func (c *fileChange) change() *fileChange { return c }
func (c *fileChange) Path() string        { return c.path }
func (c *fileChange) Warnings() []string  { return c.warnings }

func (c *fileChange) Changed() bool {
	return c.delete || !bytes.Equal(c.before, c.after)
}

func (c *fileChange) Diff() string {
	if !c.Changed() {
		return ""
	}
	name := ownfiles.Tilde(c.path)
	from, to := name, name
	if !c.snap.Exists {
		from = "/dev/null"
	}
	after := c.after
	if c.delete {
		to, after = "/dev/null", nil
	}
	text := diff.Diff(from, lf(c.before), to, lf(after))
	// The diff's first line ("diff from to") says again what --- and +++ say.
	_, rest, _ := bytes.Cut(text, []byte("\n"))
	return string(rest)
}

// lf shows CRLF files' lines as lines: the diff is for reading.
func lf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")) }

// describeAs is setup's line for a file: what it is for, and whether it
// is made, edited or left.
func (c *fileChange) describeAs(what string) string {
	name := ownfiles.Tilde(c.path)
	switch {
	case c.delete:
		return "delete " + name + " (setup created it)"
	case !c.Changed():
		return name + ": unchanged"
	case !c.snap.Exists:
		return "create " + name + " (" + what + ")"
	}
	return "edit " + name + " (" + what + ")"
}

// check is the preflight: the file can still be written and is what the
// plan read.
func (c *fileChange) check() error {
	if !c.Changed() {
		return nil
	}
	if err := c.snap.Writable(); err != nil {
		return err
	}
	if changed, err := c.snap.Changed(); err != nil {
		return err
	} else if changed {
		return fmt.Errorf("%s changed since the plan was made; nothing was written", ownfiles.Tilde(c.path))
	}
	return nil
}

// write applies the change.
func (c *fileChange) write() error {
	defer removeEmptyDirs(c.removeDirs)
	if !c.Changed() {
		return nil
	}
	if c.delete {
		if err := configs.RemoveFile(c.snap); err != nil {
			return fmt.Errorf("removing %s: %w", ownfiles.Tilde(c.path), err)
		}
		return nil
	}
	for _, d := range slices.Backward(c.createDirs) {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating %s: %w", ownfiles.Tilde(d), err)
		}
	}
	write := configs.WriteFile
	if c.own {
		write = configs.WriteOwnFile
	}
	if err := write(c.snap, c.after); err != nil {
		return fmt.Errorf("writing %s: %w", ownfiles.Tilde(c.path), err)
	}
	for _, d := range c.extraDirs {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating %s: %w", ownfiles.Tilde(d), err)
		}
	}
	return nil
}

// removeEmptyDirs removes the folders, deepest first, each only when empty:
// a folder someone put something in stays.
func removeEmptyDirs(dirs []string) {
	dirs = slices.Clone(dirs)
	slices.SortStableFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	for _, d := range dirs {
		os.Remove(d)
	}
}

// configEdit writes runaway's own config.
type configEdit struct{ fileChange }

func (e *configEdit) Describe() string  { return e.describeAs("runaway's config") }
func (e *configEdit) record(*Installed) {}

// hookEdit puts runaway's entries into one settings file (and, for an
// agent with rules of its own, the rules that keep runaway's files out of
// its tools' reach). Its record is what unhookEdit undoes.
type hookEdit struct {
	fileChange
	harness agent.ID
	// project: a project's settings file, not the harness's user file.
	project     bool
	createdFile bool
	command     string
	undos       []configs.Undo
	rules       *configs.RulesUndo
	// what the file is for people, when not "<agent>'s hook entry".
	what string
	// note adds what the agent's own file keeps in the record (Codex:
	// the trust records config.toml held before setup).
	note func(*InstalledFile)
}

func (e *hookEdit) Describe() string {
	what := e.what
	if what == "" {
		what = agent.Of(e.harness).Name + "'s hook entry"
		if e.rules != nil {
			what += fmt.Sprintf(" and %d deny rules for runaway's files", len(e.rules.Rules))
		}
	}
	return e.describeAs(what)
}

// installed is the file's record once written.
func (e *hookEdit) installed() InstalledFile {
	f := InstalledFile{
		Harness: e.harness, Path: e.path, Project: e.project, Command: e.command, SHA256: HashBytes(e.after),
		CreatedFile: e.createdFile, CreatedDirs: e.createDirs, Undos: e.undos, Rules: e.rules,
	}
	if e.note != nil {
		e.note(&f)
	}
	return f
}

func (e *hookEdit) record(rec *Installed) { rec.put(e.installed()) }

// unhookEdit takes runaway's entries (and rules) out of a settings file,
// and deletes the file when setup created it and nothing else is in it.
type unhookEdit struct{ fileChange }

func (e *unhookEdit) Describe() string {
	name := ownfiles.Tilde(e.path)
	if e.delete {
		return "delete " + name + " (setup created it; nothing else is in it)"
	}
	return "edit " + name + " (take out runaway's entries)"
}

func (e *unhookEdit) record(*Installed) {}

// Edits are a plan's edits, in the order they are applied.
type Edits []Edit

// Diff is every edit as one unified diff ("" when nothing changes).
func (es Edits) Diff() string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.Diff())
	}
	return b.String()
}

// warningLines are the edits' warnings, for a plan's summary.
func (es Edits) warningLines() []string {
	var out []string
	for _, e := range es {
		for _, w := range e.Warnings() {
			out = append(out, "warning: "+w)
		}
	}
	return out
}

// check is the preflight of every edit, before anything is written.
func (es Edits) check() error {
	for _, e := range es {
		if err := e.change().check(); err != nil {
			return err
		}
	}
	return nil
}

// hookEditOf is the plan's edit of a harness's user settings file, or nil.
func (es Edits) hookEditOf(id agent.ID) *hookEdit {
	for _, e := range es {
		if h, ok := e.(*hookEdit); ok && h.harness == id && !h.project {
			return h
		}
	}
	return nil
}
