package transcripts

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// A small JSON walker: it finds the few fields a reader needs in a line
// without decoding the rest (message text, thinking, tool output), which is
// most of a transcript's bytes. Values are returned as raw spans.

var errSyntax = errors.New("transcripts: malformed JSON")

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, errSyntax
		}
		i += j
		// Count the backslashes before the quote: an odd number escapes it.
		k := i - 1
		for k >= 0 && b[k] == '\\' {
			k--
		}
		if (i-1-k)%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				var err error
				if i, err = skipString(b, i); err != nil {
					return 0, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errSyntax
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t' {
				break
			}
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		return j, nil
	}
}

// errStop ends a walk early without an error.
var errStop = errors.New("stop")

// walkObject calls fn with each key (raw, without quotes) and raw value of
// the object in b. fn returning false stops the walk.
func walkObject(b []byte, fn func(key, val []byte) bool) error {
	_, err := walkFields(b, 0, func(key []byte, v int) (int, error) {
		val, end, err := span(b, v)
		if err == nil && !fn(key, val) {
			return 0, errStop
		}
		return end, err
	})
	if err == errStop {
		return nil
	}
	return err
}

// str decodes a raw JSON string value; anything else gives "".
func str(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	inner := v[1 : len(v)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// num decodes a raw JSON number as an int64; anything else gives 0.
func num(v []byte) int64 {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(v), 64)
		if ferr != nil {
			return 0
		}
		return int64(f)
	}
	return n
}

func isTrue(v []byte) bool { return string(v) == "true" }

// walkFields calls fn for each key of the object that starts at b[i]
// (after spaces), with the index where the key's value starts; fn returns
// the index after the value, having parsed it or skipped it with skipValue.
// So a caller descends into the one value it needs without scanning any
// byte twice. walkFields returns the index after the object.
func walkFields(b []byte, i int, fn func(key []byte, v int) (int, error)) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '{' {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		v := skipSpace(b, i+1)
		if v >= len(b) {
			return 0, errSyntax
		}
		if i, err = fn(key, v); err != nil {
			return 0, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == '}' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

// walkElems is walkFields for the elements of the array that starts at b[i].
func walkElems(b []byte, i int, fn func(v int) (int, error)) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '[' {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		if i >= len(b) {
			return 0, errSyntax
		}
		var err error
		if i, err = fn(i); err != nil {
			return 0, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		if b[i] == ']' {
			return i + 1, nil
		}
		if b[i] != ',' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
	}
}

// pick walks the object in b once and sets vals[i] to the raw value of
// keys[i] (nil where absent, the last where given twice). Keys are matched
// as written: a caller that must agree with encoding/json, which also takes
// a key in another case or with escapes, checks odd reports false.
func pick(b []byte, keys []string, vals [][]byte) (odd bool, err error) {
	_, err = walkFields(b, 0, func(k []byte, v int) (int, error) {
		for i, key := range keys {
			if string(k) == key {
				val, end, err := span(b, v)
				vals[i] = val
				return end, err
			}
		}
		if !odd {
			if bytes.IndexByte(k, '\\') >= 0 {
				odd = true
			}
			for _, key := range keys {
				odd = odd || bytes.EqualFold(k, []byte(key))
			}
		}
		return skipValue(b, v)
	})
	return odd, err
}

// span returns the raw value at b[v] and the index after it.
func span(b []byte, v int) ([]byte, int, error) {
	end, err := skipValue(b, v)
	if err != nil {
		return nil, 0, err
	}
	return b[v:end], end, nil
}

// FieldSpan finds the value of key among the top-level fields of the JSON
// object b without decoding any of them: b[start:end] is the raw value.
// The guard uses it to keep a large value it needs only as bytes out of
// its decoding of a hook's input. The key is matched as written (an
// escaped spelling of it is not); a key given twice is its last value, as
// encoding/json takes it. ok is false when b is no object or has no such
// key.
func FieldSpan(b []byte, key string) (start, end int, ok bool) {
	_, err := walkFields(b, 0, func(k []byte, v int) (int, error) {
		e, err := skipValue(b, v)
		if err == nil && string(k) == key {
			start, end, ok = v, e, true
		}
		return e, err
	})
	if err != nil {
		return 0, 0, false
	}
	return start, end, ok
}
