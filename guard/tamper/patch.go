package tamper

import (
	"os"
	"strings"
)

// Codex's apply_patch: the files a patch adds, updates, moves and deletes,
// and the text an update leaves, found the way Codex finds it.

// patchOp is one file operation of a Codex patch.
type patchOp struct {
	kind   byte // 'A' add, 'U' update, 'D' delete
	path   string
	moveTo string
	added  []string // Add File: the new file's lines
	hunks  []patchHunk
}

type patchHunk struct {
	context  string // the @@ line's text, if any
	old, new []string
}

// parsePatch reads Codex's apply_patch format. It is lenient: lines it does
// not know are skipped.
func parsePatch(text string) []patchOp {
	var ops []patchOp
	var cur *patchOp
	var hunk *patchHunk
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if rest, ok := strings.CutPrefix(line, "*** "); ok {
			switch {
			case strings.HasPrefix(rest, "Add File: "):
				ops = append(ops, patchOp{kind: 'A', path: strings.TrimSpace(rest[len("Add File: "):])})
			case strings.HasPrefix(rest, "Update File: "):
				ops = append(ops, patchOp{kind: 'U', path: strings.TrimSpace(rest[len("Update File: "):])})
			case strings.HasPrefix(rest, "Delete File: "):
				ops = append(ops, patchOp{kind: 'D', path: strings.TrimSpace(rest[len("Delete File: "):])})
			case strings.HasPrefix(rest, "Move to: ") && cur != nil:
				// Codex takes it after an Add File too.
				cur.moveTo = strings.TrimSpace(rest[len("Move to: "):])
				continue
			default:
				continue // Begin/End Patch, End of File
			}
			cur, hunk = &ops[len(ops)-1], nil
			continue
		}
		if cur == nil {
			continue
		}
		if cur.kind == 'A' {
			if s, ok := strings.CutPrefix(line, "+"); ok {
				cur.added = append(cur.added, s)
			}
			continue
		}
		if cur.kind != 'U' {
			continue
		}
		if ctx, ok := strings.CutPrefix(line, "@@"); ok {
			cur.hunks = append(cur.hunks, patchHunk{context: strings.TrimSpace(ctx)})
			hunk = &cur.hunks[len(cur.hunks)-1]
			continue
		}
		if hunk == nil {
			cur.hunks = append(cur.hunks, patchHunk{})
			hunk = &cur.hunks[len(cur.hunks)-1]
		}
		switch {
		case strings.HasPrefix(line, "+"):
			hunk.new = append(hunk.new, line[1:])
		case strings.HasPrefix(line, "-"):
			hunk.old = append(hunk.old, line[1:])
		default:
			s := strings.TrimPrefix(line, " ")
			hunk.old = append(hunk.old, s)
			hunk.new = append(hunk.new, s)
		}
	}
	return ops
}

// applyHunks applies an update's hunks to content the way Codex does: each
// hunk's old lines are looked for after the previous hunk (exactly, then
// ignoring trailing, then surrounding spaces).
func applyHunks(content string, hunks []patchHunk) (string, bool) {
	lines := strings.Split(content, "\n")
	trailing := len(lines) > 0 && lines[len(lines)-1] == ""
	if trailing {
		lines = lines[:len(lines)-1]
	}
	pos := 0
	for _, h := range hunks {
		if h.context != "" {
			i := seekLines(lines, []string{h.context}, pos)
			if i < 0 {
				return "", false
			}
			pos = i + 1
		}
		if len(h.old) == 0 {
			lines = append(lines, h.new...)
			pos = len(lines)
			continue
		}
		i := seekLines(lines, h.old, pos)
		if i < 0 {
			return "", false
		}
		lines = append(lines[:i], append(append([]string{}, h.new...), lines[i+len(h.old):]...)...)
		pos = i + len(h.new)
	}
	out := strings.Join(lines, "\n")
	if trailing || len(lines) > 0 {
		out += "\n"
	}
	return out, true
}

func seekLines(lines, want []string, from int) int {
	for _, norm := range []func(string) string{
		func(s string) string { return s },
		func(s string) string { return strings.TrimRight(s, " \t") },
		strings.TrimSpace,
		normalizePunct,
	} {
	next:
		for i := from; i+len(want) <= len(lines); i++ {
			for j, w := range want {
				if norm(lines[i+j]) != norm(w) {
					continue next
				}
			}
			return i
		}
	}
	return -1
}

// normalizePunct is Codex's last resort when it looks for a hunk's lines:
// spaces trimmed, typographic dashes, quotes and spaces made plain.
func normalizePunct(s string) string {
	return punct.Replace(strings.TrimSpace(s))
}

var punct = strings.NewReplacer(
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"\u00A0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200A", " ", "\u202F", " ", "\u205F", " ", "\u3000", " ",
)

// patch checks a Codex patch, section by section in order: files it adds,
// updates, moves and deletes. An update of a settings file runaway manages
// that cannot be tried on the file is denied: Codex's matching may find
// what the wire's did not.
func (t *checker) patch(text, cwd string) *finding {
	for _, op := range parsePatch(text) {
		p := t.abs(op.path, cwd)
		if p == "" {
			continue
		}
		dest := ""
		if op.moveTo != "" {
			if dest = t.abs(op.moveTo, cwd); dest == "" {
				continue
			}
		}
		switch op.kind {
		case 'A':
			content := strings.Join(op.added, "\n") + "\n"
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
				next, ok = applyHunks(old, op.hunks)
			}
			var removed, added []string
			for _, h := range op.hunks {
				removed = append(removed, h.old...)
				added = append(added, h.new...)
			}
			untried := func(kind fileKind, path string) *finding {
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
