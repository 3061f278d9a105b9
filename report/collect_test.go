package report

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/runaway-guard/runaway/transcripts"
)

// tokenPricer prices a million tokens of any kind at $1, so that totals
// compare as dollars and tokens at once.
type tokenPricer struct{}

func (tokenPricer) Cost(_ string, u transcripts.Usage, _ time.Time) (float64, bool) {
	return float64(u.Total()) / 1e6, false
}

// realFixtures is ../shared/fixtures/real from the module root, or a skip.
func realFixtures(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Skip("module root not found")
		}
		dir = filepath.Dir(dir)
	}
	real := filepath.Join(dir, "..", "shared", "fixtures", "real")
	if _, err := os.Stat(real); err != nil {
		t.Skipf("real fixtures not found at %s (they live outside the repository)", real)
	}
	return real
}

// homeEnv is an Env whose agents' folders are all under home.
func homeEnv(home string) Env {
	return func(k string) string {
		switch k {
		case "HOME", "GEMINI_CLI_HOME":
			return home
		case "CLAUDE_CONFIG_DIR":
			return filepath.Join(home, ".claude")
		case "CODEX_HOME":
			return filepath.Join(home, ".codex")
		case "XDG_DATA_HOME":
			return filepath.Join(home, ".local", "share")
		}
		return ""
	}
}

// writer grows the agents' files in a home piece by piece: each file's
// final bytes are known, and step appends, replaces or truncates some of
// them toward that end.
type writer struct {
	final map[string][]byte // path in home → its final content
	now   map[string]int    // bytes written so far
}

func (w *writer) step(t *testing.T, rng *rand.Rand) {
	for path, data := range w.final {
		n := w.now[path]
		if n == len(data) || rng.IntN(3) == 0 {
			continue
		}
		// Up to a random point, which may cut a line in two.
		to := n + 1 + rng.IntN(len(data)-n)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		switch rng.IntN(10) {
		case 0: // the agent rewrote the file: a copy of itself, as far as it got
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, data[:to], 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		default:
			f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			f.Write(data[n:to])
			f.Close()
		}
		w.now[path] = to
	}
}

func (w *writer) done() bool {
	for p, d := range w.final {
		if w.now[p] != len(d) {
			return false
		}
	}
	return true
}

// sum is a report's total per session, in tokens.
func sum(h *History) map[string]float64 {
	out := map[string]float64{}
	for _, s := range h.Sessions {
		for _, b := range s.Buckets {
			out[string(s.Agent)+" "+s.ID] += b.USD
		}
	}
	return out
}

// byAgent is a report's total per agent. (Per session they can differ where
// two sessions share responses, as the fixture's turn-1 and turn-2
// snapshots of one session do: a shared response counts for the session
// that yielded it first, which depends on which one grew first.)
func byAgent(h *History) map[string]float64 {
	out := map[string]float64{}
	for _, s := range h.Sessions {
		for _, b := range s.Buckets {
			out[string(s.Agent)] += b.USD
		}
	}
	return out
}

func equalTotals(a, b map[string]float64) bool {
	for k, v := range a {
		if math.Abs(v-b[k]) > 1e-9 {
			return false
		}
	}
	for k, v := range b {
		if math.Abs(v-a[k]) > 1e-9 {
			return false
		}
	}
	return true
}

// TestReportIncrementalEqualsFullRead lays every real Claude Code, Codex and
// Gemini CLI session out in a home, and writes them there in random pieces
// (lines cut in two, files rewritten as copies of themselves): after every
// piece, a report read from its cache gives the same totals, per agent, as
// a report that reads everything.
func TestReportIncrementalEqualsFullRead(t *testing.T) {
	real := realFixtures(t)
	for seed := range uint64(2) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			home := t.TempDir()
			w := &writer{final: map[string][]byte{}, now: map[string]int{}}
			add := func(src, dst string) {
				data, err := os.ReadFile(src)
				if err != nil {
					t.Fatal(err)
				}
				w.final[filepath.Join(home, dst)] = data
			}
			layout(t, real, add)
			cache := filepath.Join(home, "cache.json")
			o := Options{Env: homeEnv(home), Pricer: tokenPricer{}, PricesID: "t"}
			for step := 0; !w.done(); step++ {
				w.step(t, rng)
				ageDirs(t, home, step)
				o.CachePath = cache
				inc, err := Collect(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				o.CachePath = ""
				full, err := Collect(context.Background(), o)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := byAgent(inc), byAgent(full); !equalTotals(a, b) {
					t.Fatalf("step %d: from the cache %v, read in full %v", step, a, b)
				}
			}
			full, _ := Collect(context.Background(), Options{Env: homeEnv(home), Pricer: tokenPricer{}})
			if len(full.Sessions) < 10 {
				t.Fatalf("only %d sessions read: the layout went wrong", len(full.Sessions))
			}
			// Nothing new: no session's state is even decoded.
			o.CachePath = cache
			Collect(context.Background(), o)
			again, _ := Collect(context.Background(), o)
			for _, st := range again.Sessions {
				if st.raw == nil {
					t.Errorf("%s %s: read again with nothing new", st.Agent, st.ID)
				}
			}
		})
	}
}

// ageDirs moves the time of every folder under root changed since the last
// step an hour back, to a second of its own for each step: as if the report
// ran long after the agent wrote (a report trusts only a folder's time from
// before its read began), while a folder changed keeps a time other than
// the one a report noted.
func ageDirs(t *testing.T, root string, step int) {
	t.Helper()
	recent := time.Now().Add(-10 * time.Minute)
	at := time.Now().Add(-time.Hour).Truncate(time.Second).Add(time.Duration(step) * time.Second)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if fi, err := d.Info(); err == nil && fi.ModTime().After(recent) {
			return os.Chtimes(p, at, at)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// layout names where each real fixture goes in a home: Claude Code projects
// under .claude/projects, Codex rollouts in one day folder, Gemini CLI
// session files (with their subagents' folders) under .gemini/tmp.
func layout(t *testing.T, real string, add func(src, dst string)) {
	filepath.Walk(real, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		rel, _ := filepath.Rel(real, p)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		switch parts[0] {
		case "claude-code":
			// <project>/<session>.jsonl and <project>/<session>/subagents/…
			for i := len(parts) - 1; i >= 2; i-- {
				if strings.HasSuffix(parts[i], ".jsonl") && (i == len(parts)-1) {
					proj := i - 1
					if parts[i-1] == "subagents" {
						proj = i - 3
					}
					if proj < 1 {
						return nil
					}
					name := strings.Join(parts[1:proj+1], "_")
					add(p, filepath.Join(".claude", "projects", name, strings.Join(parts[proj+1:], "/")))
					return nil
				}
			}
		case "codex":
			if strings.HasPrefix(fi.Name(), "rollout-") {
				add(p, filepath.Join(".codex", "sessions", "2026", "01", "01", fi.Name()))
			}
		case "gemini":
			i := slicesIndex(parts, "chats")
			if i > 0 {
				add(p, filepath.Join(".gemini", "tmp", strings.Join(parts[1:i], "_"), filepath.Join(parts[i:]...)))
			}
		}
		return nil
	})
}

func slicesIndex(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// TestReportCountsACopyOnce: a Claude Code session copied into another
// project repeats its responses; they count once, and the copy's own new
// responses count.
func TestReportCountsACopyOnce(t *testing.T) {
	home := t.TempDir()
	line := func(id string, in int) string {
		return fmt.Sprintf(`{"type":"assistant","sessionId":"s1","requestId":"req_%s","timestamp":"2026-11-30T10:00:00.000Z","message":{"id":"msg_%s","model":"claude-sonnet-4-6","content":[],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n", id, id, in)
	}
	orig := filepath.Join(home, ".claude", "projects", "-a", "s1.jsonl")
	copied := filepath.Join(home, ".claude", "projects", "-b", "s1.jsonl")
	for _, p := range []string{orig, copied} {
		os.MkdirAll(filepath.Dir(p), 0o755)
	}
	os.WriteFile(orig, []byte(line("1", 1_000_000)+line("2", 2_000_000)), 0o600)
	os.WriteFile(copied, []byte(line("1", 1_000_000)+line("2", 2_000_000)+line("3", 4_000_000)), 0o600)
	for _, cache := range []string{"", filepath.Join(home, "cache.json")} {
		h, err := Collect(context.Background(), Options{Env: homeEnv(home), Pricer: tokenPricer{}, CachePath: cache})
		if err != nil {
			t.Fatal(err)
		}
		var total float64
		for _, v := range sum(h) {
			total += v
		}
		if total != 7 {
			t.Errorf("cache %q: total $%v, want $7 (3 responses, the copy's first two once)", cache, total)
		}
	}
}

// TestReportCacheFollowsPrices: a cache made with another price table is
// not used, and a session whose file is gone leaves the report.
func TestReportCacheFollowsPrices(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, ".claude", "projects", "-a", "s1.jsonl")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(`{"type":"assistant","sessionId":"s1","requestId":"r","timestamp":"2026-11-30T10:00:00.000Z","message":{"id":"m","model":"x","content":[],"usage":{"input_tokens":1000000,"output_tokens":0}}}`+"\n"), 0o600)
	cache := filepath.Join(home, "cache.json")
	double := pricerFunc(func(string, transcripts.Usage) (float64, bool) { return 2, false })
	o := Options{Env: homeEnv(home), Pricer: tokenPricer{}, PricesID: "one", CachePath: cache}
	if h, _ := Collect(context.Background(), o); sum(h)["claude s1"] != 1 {
		t.Fatalf("first report: %v", sum(h))
	}
	o.Pricer, o.PricesID = double, "two"
	if h, _ := Collect(context.Background(), o); sum(h)["claude s1"] != 2 {
		t.Fatalf("with other prices: %v, want the session priced again", sum(h))
	}
	if b, _ := os.ReadFile(cache); loadCache(cache, "two").Prices != "two" || len(loadCache(cache, "two").Sessions) != 1 {
		t.Fatalf("the cache was not made again: %q", b)
	}
	os.Remove(p)
	if h, _ := Collect(context.Background(), o); len(h.Sessions) != 0 {
		t.Fatalf("a session whose file is gone is still reported: %v", sum(h))
	}
}

type pricerFunc func(string, transcripts.Usage) (float64, bool)

func (f pricerFunc) Cost(m string, u transcripts.Usage, _ time.Time) (float64, bool) { return f(m, u) }

// TestReportSeesNewFilesOfAnUnchangedSession: a session whose files did not
// grow is not read again, yet a subagent file new in its folders is found
// (Claude Code's <session>/subagents/, Gemini CLI's chats/<session id>/),
// and a line appended to a file with its folders unchanged is counted.
func TestReportSeesNewFilesOfAnUnchangedSession(t *testing.T) {
	home := t.TempDir()
	claude := filepath.Join(home, ".claude", "projects", "-p", "s1.jsonl")
	gemini := filepath.Join(home, ".gemini", "tmp", "p", "chats", "session-2026-11-30T10-00-aaaaaaaa.jsonl")
	claudeLine := func(id string, tokens int) string {
		return fmt.Sprintf(`{"type":"assistant","sessionId":"s1","requestId":"r%s","timestamp":"2026-11-30T10:00:00.000Z","message":{"id":"m%s","model":"x","content":[],"usage":{"input_tokens":%d,"output_tokens":0}}}`+"\n", id, id, tokens)
	}
	geminiLine := func(id string, tokens int) string {
		return fmt.Sprintf(`{"id":"%s","timestamp":"2026-11-30T10:00:01.000Z","type":"gemini","content":"x","tokens":{"input":%d,"output":0},"model":"gemini-3.8-flash"}`+"\n", id, tokens)
	}
	write := func(path, data string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(data)
		f.Close()
	}
	write(claude, claudeLine("1", 1_000_000))
	write(gemini, `{"sessionId":"aaaaaaaa-1111","projectHash":"ab","startTime":"2026-11-30T10:00:00.000Z","kind":"main"}`+"\n"+geminiLine("g1", 1_000_000))
	o := Options{Env: homeEnv(home), Pricer: tokenPricer{}, PricesID: "t", CachePath: filepath.Join(home, "cache")}
	step := 0
	report := func(want map[string]float64) *History {
		t.Helper()
		step++
		ageDirs(t, home, step)
		h, err := Collect(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if got := sum(h); !reflect.DeepEqual(got, want) {
			t.Fatalf("report %d: %v, want %v", step, got, want)
		}
		return h
	}
	report(map[string]float64{"claude s1": 1, "gemini aaaaaaaa-1111": 1})
	h := report(map[string]float64{"claude s1": 1, "gemini aaaaaaaa-1111": 1})
	for _, st := range h.Sessions {
		if st.raw == nil {
			t.Errorf("%s: read again with nothing new", st.Agent)
		}
	}
	write(filepath.Join(filepath.Dir(claude), "s1", "subagents", "agent-a1.jsonl"), claudeLine("2", 2_000_000))
	write(filepath.Join(filepath.Dir(gemini), "aaaaaaaa-1111", "sub-1.jsonl"), geminiLine("g2", 2_000_000))
	report(map[string]float64{"claude s1": 3, "gemini aaaaaaaa-1111": 3})
	write(filepath.Join(filepath.Dir(claude), "s1", "subagents", "agent-a1.jsonl"), claudeLine("3", 4_000_000))
	write(filepath.Join(filepath.Dir(gemini), "aaaaaaaa-1111", "sub-1.jsonl"), geminiLine("g3", 4_000_000))
	report(map[string]float64{"claude s1": 7, "gemini aaaaaaaa-1111": 7})
	// A folder made inside subagents/ after the report, and a file in it.
	write(filepath.Join(filepath.Dir(claude), "s1", "subagents", "nested", "agent-a2.jsonl"), claudeLine("4", 8_000_000))
	report(map[string]float64{"claude s1": 15, "gemini aaaaaaaa-1111": 7})
}
