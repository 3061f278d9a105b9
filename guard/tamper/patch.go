package tamper

import (
	"os"
	"strings"

	"github.com/runaway-guard/runaway/guard/tamper/patch"
)

// patch checks a Codex patch, section by section in order: files it adds,
// updates, moves and deletes. An update of a settings file runaway manages
// that cannot be tried on the file is denied: Codex's matching may find
// what the wire's did not.
func (t *checker) patch(text, cwd string) *finding {
	for _, op := range patch.Parse(text) {
		p := t.abs(op.Path, cwd)
		if p == "" {
			continue
		}
		dest := ""
		if op.MoveTo != "" {
			if dest = t.abs(op.MoveTo, cwd); dest == "" {
				continue
			}
		}
		switch op.Kind {
		case 'A':
			content := strings.Join(op.Added, "\n") + "\n"
			write := func(string, bool) (string, bool) { return content, true }
			if f := t.writeFile(p, write, nil); f != nil {
				return f
			}
			if dest != "" {
				if f := t.writeFile(dest, write, nil); f != nil {
					return f
				}
			}
		case 'D':
			if f := t.removeFile(p); f != nil {
				return f
			}
		case 'U':
			old, err := readSmall(p)
			next, ok := "", false
			if err == nil {
				next, ok = patch.Apply(old, op.Hunks)
			}
			var removed, added []string
			for _, h := range op.Hunks {
				removed = append(removed, h.Old...)
				added = append(added, h.New...)
			}
			untried := func(kind *fileKind, path string) *finding {
				if f := editTouchesHooks(kind, path, strings.Join(removed, "\n"), strings.Join(added, "\n")); f != nil {
					return f
				}
				if _, err := os.Lstat(path); err != nil {
					return nil // Codex fails the patch: nothing changes
				}
				return &finding{action: "patch " + kind.noun() + " in a way runaway cannot try on the file", path: path}
			}
			content := func(string, bool) (string, bool) { return next, ok }
			if dest == "" {
				if f := t.writeFile(p, content, untried); f != nil {
					return f
				}
				continue
			}
			if f := t.removeFile(p); f != nil {
				return f
			}
			if f := t.writeFile(dest, content, untried); f != nil {
				return f
			}
		}
	}
	return nil
}
