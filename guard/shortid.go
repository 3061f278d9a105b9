package guard

import "slices"

// minShortID is the fewest characters of an id status shows: a UUID's
// first group, which nearly always tells sessions apart on its own.
const minShortID = 8

// ShortIDs gives each id the shortest prefix of at least minShortID
// characters that starts no other id: what status shows, and what allow
// and status take back. Ids made from a clock (OpenCode's ses_…, where
// sessions started the same minute share a dozen characters) get as many
// characters as tell them apart; an id given twice (two agents' sessions
// of one id) is shown whole.
func ShortIDs(ids []string) map[string]string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	out := make(map[string]string, len(ids))
	for i, id := range sorted {
		n := 0
		if i > 0 {
			n = max(n, commonPrefix(id, sorted[i-1])+1)
		}
		if i+1 < len(sorted) {
			n = max(n, commonPrefix(id, sorted[i+1])+1)
		}
		out[id] = id[:min(max(n, minShortID), len(id))]
	}
	return out
}

// commonPrefix is the length of the prefix a and b share.
func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// shortIDsOf are the short ids of the sessions.
func shortIDsOf(sessions []*Session) map[string]string {
	ids := make([]string, len(sessions))
	for i, s := range sessions {
		ids[i] = s.SessionID
	}
	return ShortIDs(ids)
}
