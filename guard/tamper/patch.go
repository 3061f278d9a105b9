package tamper

import (
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

// patch checks a Codex patch: files it adds, updates, moves and deletes.
func (t *checker) patch(text, cwd string) *finding {
	for _, op := range parsePatch(text) {
		p := abs(op.path, cwd)
		if p == "" {
			continue
		}
		switch op.kind {
		case 'A':
			if f := t.writeFile(p, func(string, bool) (string, bool) { return strings.Join(op.added, "\n") + "\n", true }, nil); f != nil {
				return f
			}
		case 'D':
			if f := t.removeFile(p); f != nil {
				return f
			}
		case 'U':
			var next string
			apply := func(old string, exists bool) (string, bool) {
				if !exists {
					return "", false
				}
				var ok bool
				next, ok = applyHunks(old, op.hunks)
				return next, ok
			}
			var removed, added []string
			for _, h := range op.hunks {
				removed = append(removed, h.old...)
				added = append(added, h.new...)
			}
			fallback := func(kind fileKind, path string) *finding {
				return editTouchesHooks(kind, path, strings.Join(removed, "\n"), strings.Join(added, "\n"))
			}
			if op.moveTo == "" {
				if f := t.writeFile(p, apply, fallback); f != nil {
					return f
				}
				continue
			}
			if f := t.removeFile(p); f != nil {
				return f
			}
			dest := abs(op.moveTo, cwd)
			if dest == "" {
				continue
			}
			old, err := readSmall(p)
			if err == nil {
				next, _ = applyHunks(old, op.hunks)
			}
			if f := t.writeFile(dest, func(string, bool) (string, bool) { return next, err == nil }, fallback); f != nil {
				return f
			}
		}
	}
	return nil
}
