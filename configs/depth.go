package configs

import "bytes"

// MaxNesting bounds how deeply arrays, objects and tables may nest in a
// file runaway parses (encoding/json's own limit). The JSONC and TOML
// parsers recurse once per level: a file nested a million deep overflows
// the stack, a fatal error that no recover catches.
const MaxNesting = 10000

// TooDeep returns the offset of the first bracket that opens a level past
// MaxNesting, or -1. It skips JSON, JSONC and TOML strings and comments,
// so that brackets in text do not count; in valid files of those formats
// the two syntaxes do not clash.
func TooDeep(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '[', '{':
			if depth++; depth > MaxNesting {
				return i
			}
		case ']', '}':
			depth = max(depth-1, 0)
		case '"', '\'':
			i = skipQuoted(data, i)
		case '#':
			i = lineEnd(data, i)
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				i = lineEnd(data, i)
			} else if i+1 < len(data) && data[i+1] == '*' {
				end := bytes.Index(data[i+2:], []byte("*/"))
				if end < 0 {
					return -1
				}
				i += 2 + end + 1
			}
		}
	}
	return -1
}

func lineEnd(data []byte, i int) int {
	if n := bytes.IndexByte(data[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(data)
}

// skipQuoted returns the offset of the quote that ends the string starting
// at i: a string in single or double quotes ends at its line's end at the
// latest; TOML's multi-line strings (three quotes) span lines and may end in
// up to two more quotes.
func skipQuoted(data []byte, i int) int {
	q := data[i]
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		for j := i + 3; j < len(data); j++ {
			if q == '"' && data[j] == '\\' {
				j++
				continue
			}
			if j+2 < len(data) && data[j] == q && data[j+1] == q && data[j+2] == q {
				k := j + 3
				for k < len(data) && k < j+5 && data[k] == q {
					k++
				}
				return k - 1
			}
		}
		return len(data)
	}
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			if q == '"' {
				j++
			}
		case q, '\n':
			return j
		}
	}
	return len(data)
}
