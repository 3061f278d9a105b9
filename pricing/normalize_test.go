package pricing

import (
	"regexp"
	"strings"
	"testing"
)

// The regexps Normalize and familyOf were first written with; the
// hand-written rules must agree with them on every input.
var (
	oracleDateSuffix   = regexp.MustCompile(`(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2})$`)
	oracleBedrockVer   = regexp.MustCompile(`-v\d+(?::\d+)?$`)
	oracleClaudeDotVer = regexp.MustCompile(`(claude-[a-z]+-\d)\.(\d)`)
	oracleLegacyClaude = regexp.MustCompile(`^claude-(\d)(?:-(\d))?-(opus|sonnet|haiku)`)
	oracleClaudeFamily = regexp.MustCompile(`^claude-(opus|sonnet|haiku|fable|mythos)`)
	oracleGPTFamily    = regexp.MustCompile(`^gpt-(\d+)(?:\.\d+)?((?:-[a-z]+)*)$`)
)

func oracleNormalize(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.Index(m, "["); i > 0 {
		m = m[:i]
	}
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if i := strings.LastIndex(m, "anthropic."); i >= 0 {
		m = m[i+len("anthropic."):]
	}
	m = oracleBedrockVer.ReplaceAllString(m, "")
	suffixes := func() {
		for _, s := range []string{"-latest", "-fast"} {
			if strings.HasSuffix(m, s) && m != "codex-mini-latest" {
				m = strings.TrimSuffix(m, s)
			}
		}
	}
	// -fast and -latest come before or after a date.
	suffixes()
	m = oracleDateSuffix.ReplaceAllString(m, "")
	suffixes()
	return oracleClaudeDotVer.ReplaceAllString(m, "$1-$2")
}

func oracleFamily(id string) string {
	if m := oracleLegacyClaude.FindStringSubmatch(id); m != nil {
		return m[3]
	}
	if m := oracleClaudeFamily.FindStringSubmatch(id); m != nil {
		return m[1]
	}
	if m := oracleGPTFamily.FindStringSubmatch(id); m != nil {
		return "gpt-" + m[1] + m[2]
	}
	return ""
}

// modelIDSeeds are ids as agents write them, and near misses of each rule.
var modelIDSeeds = []string{
	"claude-opus-4-5-20251101", "Claude-Sonnet-4-5[1m]", "claude-3-5-haiku@20241022", "us.anthropic.claude-opus-5",
	"anthropic/claude-opus-4.6", "gpt-5.1-codex", "gpt-5-2025-08-07", "openai/gpt-5.5", "codex-mini-latest",
	"claude-opus-4-8-fast", "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-sonnet-4-v2",
	"claude-sonnet-4-v2:", "claude-sonnet-4-v:1", "claude-x-v12:34", "model-v1:0-v2", "a-2025-1-01",
	"a-20251301x", "x@1234567", "-12345678", "@12345678", "-2025-08-07", "2025-08-07", "claude-opus-4.5.1",
	"claude-opus-4.55", "claude-opus-44.5", "claude--4.5", "claude-opus-4.5claude-haiku-3.7", "claude-claude-opus-4.5",
	"claude-3-opus", "claude-3-5-sonnet", "claude-3-55-haiku", "claude-35-haiku", "claude-3-5-mythos", "claude-3-haikux",
	"claude-fable-5", "claude-mythos", "claude-", "claude", "gpt-5", "gpt-5.", "gpt-5.1.2", "gpt-5-codex-mini",
	"gpt-5.1-codex-mini", "gpt-5-", "gpt-5-codex-", "gpt-", "gpt-x", "gpt-12.34-a-b-c", "gpt-5-Codex", "o3", "",
	"claude-opus-4-8-latest", "gpt-5-latest-fast", "claude-opus-4-6-20260205-fast", "claude-opus-4-6-fast-20260205", "claude-opus-4-1-20250805-v1", "claude-sonnet-4.5-20250929",
}

func TestNormalizeMatchesRegexps(t *testing.T) {
	for _, id := range modelIDSeeds {
		if got, want := Normalize(id), oracleNormalize(id); got != want {
			t.Errorf("Normalize(%q) = %q, the regexps give %q", id, got, want)
		}
		n := oracleNormalize(id)
		if got, want := familyOf(n), oracleFamily(n); got != want {
			t.Errorf("familyOf(%q) = %q, the regexps give %q", n, got, want)
		}
	}
}

func FuzzNormalize(f *testing.F) {
	for _, id := range modelIDSeeds {
		f.Add(id)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := Normalize(id), oracleNormalize(id); got != want {
			t.Errorf("Normalize(%q) = %q, the regexps give %q", id, got, want)
		}
		if got, want := familyOf(id), oracleFamily(id); got != want {
			t.Errorf("familyOf(%q) = %q, the regexps give %q", id, got, want)
		}
	})
}
