// Package patch reads Codex's apply_patch format: the files a patch adds,
// updates, moves and deletes, and the text an update leaves, found the way
// Codex finds it (codex-rs/apply-patch: seek_sequence's four passes).
// It judges nothing: the tamper wire decides what the result may touch.
package patch

import "strings"

// Op is one file operation of a Codex patch.
type Op struct {
	Kind   byte // 'A' add, 'U' update, 'D' delete
	Path   string
	MoveTo string
	Added  []string // Add File: the new file's lines
	Hunks  []Hunk
}

// Hunk is one @@ section of an update.
type Hunk struct {
	Context  string // the @@ line's text, if any
	Old, New []string
}

// Parse reads Codex's apply_patch format. It is lenient: lines it does
// not know are skipped.
func Parse(text string) []Op {
	var ops []Op
	var cur *Op
	var hunk *Hunk
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if rest, ok := strings.CutPrefix(line, "*** "); ok {
			switch {
			case strings.HasPrefix(rest, "Add File: "):
				ops = append(ops, Op{Kind: 'A', Path: strings.TrimSpace(rest[len("Add File: "):])})
			case strings.HasPrefix(rest, "Update File: "):
				ops = append(ops, Op{Kind: 'U', Path: strings.TrimSpace(rest[len("Update File: "):])})
			case strings.HasPrefix(rest, "Delete File: "):
				ops = append(ops, Op{Kind: 'D', Path: strings.TrimSpace(rest[len("Delete File: "):])})
			case strings.HasPrefix(rest, "Move to: ") && cur != nil:
				// Codex takes it after an Add File too.
				cur.MoveTo = strings.TrimSpace(rest[len("Move to: "):])
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
		if cur.Kind == 'A' {
			if s, ok := strings.CutPrefix(line, "+"); ok {
				cur.Added = append(cur.Added, s)
			}
			continue
		}
		if cur.Kind != 'U' {
			continue
		}
		if ctx, ok := strings.CutPrefix(line, "@@"); ok {
			cur.Hunks = append(cur.Hunks, Hunk{Context: strings.TrimSpace(ctx)})
			hunk = &cur.Hunks[len(cur.Hunks)-1]
			continue
		}
		if hunk == nil {
			cur.Hunks = append(cur.Hunks, Hunk{})
			hunk = &cur.Hunks[len(cur.Hunks)-1]
		}
		switch {
		case strings.HasPrefix(line, "+"):
			hunk.New = append(hunk.New, line[1:])
		case strings.HasPrefix(line, "-"):
			hunk.Old = append(hunk.Old, line[1:])
		default:
			s := strings.TrimPrefix(line, " ")
			hunk.Old = append(hunk.Old, s)
			hunk.New = append(hunk.New, s)
		}
	}
	return ops
}

// Apply applies an update's hunks to content the way Codex does: each
// hunk's old lines are looked for after the previous hunk (exactly, then
// ignoring trailing, then surrounding spaces).
func Apply(content string, hunks []Hunk) (string, bool) {
	lines := strings.Split(content, "\n")
	trailing := len(lines) > 0 && lines[len(lines)-1] == ""
	if trailing {
		lines = lines[:len(lines)-1]
	}
	pos := 0
	for _, h := range hunks {
		if h.Context != "" {
			i := seekLines(lines, []string{h.Context}, pos)
			if i < 0 {
				return "", false
			}
			pos = i + 1
		}
		if len(h.Old) == 0 {
			lines = append(lines, h.New...)
			pos = len(lines)
			continue
		}
		i := seekLines(lines, h.Old, pos)
		if i < 0 {
			return "", false
		}
		lines = append(lines[:i], append(append([]string{}, h.New...), lines[i+len(h.Old):]...)...)
		pos = i + len(h.New)
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
