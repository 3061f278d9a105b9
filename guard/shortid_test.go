package guard

import (
	"strings"
	"testing"
)

func TestShortIDs(t *testing.T) {
	tests := []struct {
		name string
		ids  []string
		want map[string]string
	}{
		{"alone", []string{"5d1c9f7e-2b1a-4c3d"}, map[string]string{"5d1c9f7e-2b1a-4c3d": "5d1c9f7e"}},
		{"shorter than eight", []string{"s1"}, map[string]string{"s1": "s1"}},
		{"UUIDs apart in eight", []string{"5d1c9f7e-2b1a", "01b2c3d4-0000"},
			map[string]string{"5d1c9f7e-2b1a": "5d1c9f7e", "01b2c3d4-0000": "01b2c3d4"}},
		{"OpenCode's of one minute", []string{"ses_dccf5c8a7ffeAb", "ses_dccf5b1e2ffeOp", "ses_dccf5c8a1ffeXy"},
			map[string]string{"ses_dccf5c8a7ffeAb": "ses_dccf5c8a7", "ses_dccf5b1e2ffeOp": "ses_dccf5b", "ses_dccf5c8a1ffeXy": "ses_dccf5c8a1"}},
		{"one id a prefix of another", []string{"abcdefgh", "abcdefghij"},
			map[string]string{"abcdefgh": "abcdefgh", "abcdefghij": "abcdefghi"}},
		{"the same id twice", []string{"ses_x", "ses_x"}, map[string]string{"ses_x": "ses_x"}},
	}
	for _, tt := range tests {
		got := ShortIDs(tt.ids)
		for id, want := range tt.want {
			if got[id] != want {
				t.Errorf("%s: %s → %q, want %q", tt.name, id, got[id], want)
			}
		}
	}
}

// Each short id starts its own id and no other: allow, given it, finds
// that session alone.
func TestShortIDsNameOneSession(t *testing.T) {
	ids := []string{
		"ses_dccf59d40ffe23456789abcdef", "ses_dccf5b1e2ffeOpQrStUvWxYz01", "ses_dccf5c8a7ffeAbCdEfGhIjKlMn",
		"ses_dccf5c8a7ffeAbCdEfGhIjKlMo", "5d1c9f7e-2b1a-4c3d-8e9f-0a1b2c3d4e5f", "5d1c9f7e-2b1a-4c3d-8e9f-0a1b2c3d4e60", "x",
	}
	shorts := ShortIDs(ids)
	for _, id := range ids {
		s := shorts[id]
		if !strings.HasPrefix(id, s) || len(s) < min(minShortID, len(id)) {
			t.Errorf("%s: short id %q", id, s)
		}
		for _, other := range ids {
			if other != id && strings.HasPrefix(other, s) {
				t.Errorf("%q (of %s) also starts %s", s, id, other)
			}
		}
	}
}
