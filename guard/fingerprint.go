package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// cosmeticFields are tool input fields that do not change what a call does:
// two calls that differ only there are the same call.
var cosmeticFields = map[string]bool{
	"description": true,
}

// Fingerprint identifies a call by its tool and input: the tool name and
// the input's canonical JSON (keys sorted, numbers as written, cosmetic
// fields left out), hashed. Only the hash is stored.
func Fingerprint(tool string, input json.RawMessage) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canonical(input))
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func canonical(input json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return bytes.TrimSpace(input)
	}
	if m, ok := v.(map[string]any); ok {
		for k := range m {
			if cosmeticFields[k] {
				delete(m, k)
			}
		}
	}
	out, err := json.Marshal(v) // encoding/json sorts map keys
	if err != nil {
		return bytes.TrimSpace(input)
	}
	return out
}

// maxSummary bounds the summary of a call kept in state and shown in
// messages: enough to recognise the call, too short to hold much of it.
const maxSummary = 80

// summaryFields are the input fields that name what a call does, per tool,
// first match wins.
var summaryFields = []string{"command", "cmd", "file_path", "path", "notebook_path", "pattern", "url", "query", "prompt", "description"}

// Summarize gives a short, redacted description of a call for people:
// the command of a shell call, the file of an edit, the pattern of a search.
func Summarize(tool string, input json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, f := range summaryFields {
		raw, ok := m[f]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return summary(s)
		}
		var argv []string // Codex's older shell tool sends argv
		if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
			return summary(strings.Join(argv, " "))
		}
	}
	return ""
}

// summaryScan bounds what of a call's text is redacted for its summary,
// which keeps only maxSummary bytes: the redaction patterns take about half
// a microsecond a byte, and a command of megabytes would take the hook past
// its deadline (and so past every wire, the tamper wire too).
const summaryScan = 4 << 10

func summary(s string) string {
	s = firstLine(s)
	if len(s) > summaryScan {
		// A secret cut in two is no longer recognised as one: the cut
		// piece goes.
		s = strings.TrimRight(strings.ToValidUTF8(s[:summaryScan], ""), tokenChars) + " …"
	}
	return shorten(redact(s))
}

// tokenChars are the characters of the long runs redact hides.
const tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/="

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

func shorten(s string) string {
	if len(s) <= maxSummary {
		return s
	}
	cut := maxSummary - 1
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// A redaction pattern is compiled only when the text holds the words it
// needs: every hook call is a fresh process, and compiling all of them
// took more instructions than the rest of a typical call's work. need
// sees the text lowercased; it may say yes too often, never too rarely.
type pattern struct {
	need func(lower string) bool
	re   func() *regexp.Regexp
}

func lazy(need func(string) bool, expr string) pattern {
	return pattern{need, sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

func anyOf(words ...string) func(string) bool {
	return func(lower string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
}

func both(a, b func(string) bool) func(string) bool {
	return func(lower string) bool { return a(lower) && b(lower) }
}

// prog matches a program name at a command's start and what runs up to
// its flag.
func prog(names string) string { return `(?:^|[\s;|&(/])(?:` + names + `)\b[^;|&\n]*?\s` }

// positionalSecrets are the passwords that programs take by argument
// position, with no name that says secret: each pattern's last group is
// the secret. They run before namedSecret (whose name rule would hide
// "Bearer" and leave the token).
var positionalSecrets = []pattern{
	// Authorization headers, whatever the scheme, and curl's bearer.
	lazy(anyOf("authorization", "--oauth2-bearer"),
		`(?i)(authorization:\s*(?:(?:bearer|basic|token|digest)\s+)?|--oauth2-bearer[= ]\s*)([^\s'"]+)`),
	// mysql and its kin: the password only attached (-p alone asks).
	lazy(both(anyOf("mysql", "mariadb"), anyOf("-p")),
		prog(`mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mariadb|mariadb-dump`)+`(-p)([^\s'"]+)`),
	// sshpass -p PASS, -pPASS.
	lazy(anyOf("sshpass"), prog(`sshpass`)+`(-p\s*)([^\s'"]+)`),
	// curl/wget user:password.
	lazy(both(anyOf("curl", "wget", "http"), anyOf(":")),
		prog(`curl|wget|http|https`)+`(?:-[A-Za-z]*u|--user|--proxy-user|-U)[= ]?\s*['"]?[^\s:'"]+:([^\s'"]+)`),
	// redis-cli -a PASS, docker (podman, helm registry) login -p PASS,
	// mongo -p PASS.
	lazy(anyOf("redis-cli"), prog(`redis-cli`)+`(-a\s+)([^\s'"]+)`),
	lazy(anyOf("login"), `(?:^|[\s;|&(/])(?:docker|podman|nerdctl|helm(?:\s+registry)?)\s+login\b[^;|&\n]*?\s(-p\s+)([^\s'"]+)`),
	lazy(anyOf("mongo"), prog(`mongo|mongosh|mongodump|mongorestore`)+`(-p\s+)([^\s'"]+)`),
	// openssl pass:PASS, smbclient -U user%PASS.
	lazy(anyOf("pass:"), `(\bpass:)([^\s'"]+)`),
	lazy(both(anyOf("smbclient", "rpcclient", "smbmap"), anyOf("%")),
		prog(`smbclient|rpcclient|smbmap`)+`-U\s*[^\s%]+%([^\s'"]+)`),
	// htpasswd -b FILE USER PASS.
	lazy(anyOf("htpasswd"), prog(`htpasswd`)+`-[A-Za-z]*b[A-Za-z]*\s+\S+\s+\S+\s+([^\s'"]+)`),
}

var (
	// KEY=value and --token value pairs whose name says secret.
	namedSecret = lazy(anyOf("key", "token", "secret", "passw", "auth", "credential"),
		`(?i)([A-Za-z0-9_]*(?:key|token|secret|passw(?:or)?d|auth|credential)[A-Za-z0-9_]*\s*[=:]\s*|--?(?:[a-z-]*)(?:key|token|secret|password)[a-z-]*[= ])('[^']*'|"[^"]*"|\S+)`)
	// user:password@ in URLs.
	urlPassword = lazy(both(anyOf("://"), anyOf("@")), `://([^/\s:@]+):[^/\s@]+@`)
	// Long runs of token characters: API keys, bearer tokens, hashes.
	longToken = lazy(func(lower string) bool { return hasLongRun(lower) }, `[A-Za-z0-9_\-+/=]{32,}`)
)

// redactLastGroup replaces the last group of each match of re with ***.
func redactLastGroup(re *regexp.Regexp, s string) string {
	ms := re.FindAllStringSubmatchIndex(s, -1)
	if ms == nil {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, m := range ms {
		i, j := m[len(m)-2], m[len(m)-1]
		if i < 0 {
			continue
		}
		b.WriteString(s[prev:i])
		b.WriteString("***")
		prev = j
	}
	b.WriteString(s[prev:])
	return b.String()
}

// hasLongRun tells whether s holds 32 token characters in a row.
func hasLongRun(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(tokenChars, s[i]) >= 0 {
			run++
			if run >= 32 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// redact hides what looks like a secret before a summary is stored.
func redact(s string) string {
	lower := strings.ToLower(s)
	for _, p := range positionalSecrets {
		if p.need(lower) {
			s = redactLastGroup(p.re(), s)
		}
	}
	if namedSecret.need(lower) {
		s = namedSecret.re().ReplaceAllString(s, "${1}***")
	}
	if urlPassword.need(lower) {
		s = urlPassword.re().ReplaceAllString(s, "://${1}:***@")
	}
	if longToken.need(lower) {
		s = longToken.re().ReplaceAllString(s, "***")
	}
	return s
}
