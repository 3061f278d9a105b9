package configs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pluginDriver loads the plugin the way OpenCode does (an ES module whose
// exported function gets the context and returns the hooks), feeds it the
// events OpenCode 1.18.33 sent (reference/opencode-observed.md §3.1), runs
// one hook, and prints what happened as JSON.
const pluginDriver = `
const [plugin, hook] = process.argv.slice(2)
// The provider's fetch: a stream whose usage comes 150 ms after its tool call, as a slow finish.
const sent = []
globalThis.fetch = async (url, init) => {
  sent.push(Object.fromEntries(new Headers(init?.headers).entries()))
  const enc = new TextEncoder()
  const body = new ReadableStream({
    async start(c) {
      c.enqueue(enc.encode('data: {"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}\n\n'))
      await new Promise((r) => setTimeout(r, 150))
      c.enqueue(enc.encode('data: {"choices":[],"usage":{"prompt_tokens":100000,"completion_tokens":5000,"prompt_tokens_details":{"cached_tokens":60000}}}\n\ndata: [DONE]\n\n'))
      c.close()
    },
  })
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } })
}
const { RunawayGuard } = await import(plugin)
const toasts = []
const hooks = await RunawayGuard({ directory: "/proj", client: { tui: { showToast: async (o) => { toasts.push(o.body.message) } } } })
const ev = (type, properties) => hooks.event({ event: { id: "e", type, properties } })
await ev("session.created", { info: { id: "ses_root" } })
await ev("session.created", { info: { id: "ses_child", parentID: "ses_root" } })
await ev("message.updated", { info: { id: "msg_u1", sessionID: "ses_root", role: "user" } })
await ev("message.updated", { info: { id: "msg_a1", sessionID: "ses_root", role: "assistant", modelID: "gpt-4.1", cost: 0, tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } } } })
await ev("message.updated", { info: { id: "msg_a1", sessionID: "ses_root", role: "assistant", modelID: "gpt-4.1", cost: 0.15, tokens: { input: 40000, output: 5000, reasoning: 1000, cache: { read: 60000, write: 0 } } } })
await ev("message.updated", { info: { id: "msg_a2", sessionID: "ses_child", role: "assistant", modelID: "fake-1", cost: 0, tokens: { input: 100, output: 10, reasoning: 0, cache: { read: 0, write: 5 } } } })
await ev("message.part.updated", { part: { type: "tool", sessionID: "ses_root", callID: "call_1", state: { status: "running" } } })
await ev("message.part.updated", { part: { type: "tool", sessionID: "ses_root", callID: "call_1", state: { status: "error", error: "boom" } } })
await ev("message.part.updated", { part: { type: "tool", sessionID: "ses_root", callID: "call_1", state: { status: "error", error: "boom" } } })
await ev("message.part.updated", { part: { type: "tool", sessionID: "ses_child", callID: "call_2", state: { status: "completed", metadata: { exit: 1 } } } })
await ev("message.part.updated", { part: { type: "tool", sessionID: "ses_root", callID: "call_3", state: { status: "completed", metadata: { exit: 0 } } } })
await ev("no.such.event", null)
const start = Date.now()
let error = null
try {
  if (hook === "chat.params") await hooks["chat.params"]({ sessionID: "ses_root", agent: "build", model: { id: "gpt-4.1" } }, {})
  else if (hook === "wire") {
    // A step of the child session: its request, then its tool call before the stream ended.
    await hooks["chat.params"]({ sessionID: "ses_child", agent: "build", model: { id: "fake-1", cost: { input: 3, output: 15, cache: { read: 0.3, write: 0 } } } }, {})
    const out = { headers: { "x-other": "kept" } }
    await hooks["chat.headers"]({ sessionID: "ses_child", agent: "build" }, out)
    const res = await globalThis.fetch("http://127.0.0.1:9/v1/chat/completions", { method: "POST", headers: out.headers })
    const whole = res.text()
    await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_child", callID: "call_5" }, { args: { command: "echo hi" } })
    if (!(await whole).includes("[DONE]")) error = "the provider's stream did not reach OpenCode whole"
  } else await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_child", callID: "call_4" }, { args: { command: "echo hi", description: "d" } })
} catch (e) { error = e.message }
await new Promise((r) => setTimeout(r, 20))
console.log(JSON.stringify({ error, toasts, ms: Date.now() - start, sent }))
`

type pluginOutcome struct {
	Error  *string  `json:"error"`
	Toasts []string `json:"toasts"`
	MS     int      `json:"ms"`
	// Sent are the headers of each request that reached the provider.
	Sent []map[string]string `json:"sent"`
}

// runPlugin renders the plugin around a stand-in for runaway (a shell
// script) and runs one hook through node. Its timeout is never reached,
// however busy the machine.
func runPlugin(t *testing.T, runaway, hook string) (pluginOutcome, []byte) {
	t.Helper()
	return runPluginWithin(t, runaway, hook, 2*time.Minute)
}

// runPluginWithin is runPlugin with the plugin's timeout for runaway.
func runPluginWithin(t *testing.T, runaway, hook string, timeout time.Duration) (pluginOutcome, []byte) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the plugin's tests run it with node")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "run away") // a space, as in real paths
	if runaway != "" {
		script := "#!/bin/sh\ncat > \"$(dirname \"$0\")/stdin.json\"\nprintf '%s' \"$*\" > \"$(dirname \"$0\")/args\"\n" + runaway + "\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	plugin := filepath.Join(dir, "runaway.mjs")
	if err := os.WriteFile(plugin, renderOpenCodePlugin(bin, timeout), 0o644); err != nil {
		t.Fatal(err)
	}
	driver := filepath.Join(dir, "driver.mjs")
	if err := os.WriteFile(driver, []byte(pluginDriver), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, driver, "file://"+plugin, hook).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var o pluginOutcome
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatalf("driver printed %q: %v", out, err)
	}
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin.json"))
	if runaway != "" {
		if args, _ := os.ReadFile(filepath.Join(dir, "args")); string(args) != "hook opencode" {
			t.Errorf("runaway ran with %q, want \"hook opencode\"", args)
		}
	}
	return o, stdin
}

func TestOpenCodePluginSendsTheCallAndOpenCodesFigures(t *testing.T) {
	o, stdin := runPlugin(t, "exit 0", "tool.execute.before")
	if o.Error != nil {
		t.Fatalf("no answer, but the plugin threw %q", *o.Error)
	}
	var got struct {
		Event     string          `json:"hook_event_name"`
		Session   string          `json:"session_id"`
		Agent     string          `json:"agent_id"`
		Prompt    string          `json:"prompt_id"`
		Tool      string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
		CallID    string          `json:"tool_use_id"`
		Cwd       string          `json:"cwd"`
		OpenCode  struct {
			Plugin   int     `json:"plugin"`
			Instance string  `json:"instance"`
			Seq      int     `json:"seq"`
			Cost     float64 `json:"cost_usd"`
			Tokens   map[string]int64
			Unpriced []map[string]any
			Models   []string
			Results  []struct {
				ID     string `json:"id"`
				Failed bool   `json:"failed"`
			}
		} `json:"opencode"`
	}
	if err := json.Unmarshal(stdin, &got); err != nil {
		t.Fatalf("runaway got %q: %v", stdin, err)
	}
	// A subagent's call is its root session's, as in Claude Code.
	if got.Event != "tool.execute.before" || got.Session != "ses_root" || got.Agent != "ses_child" || got.Prompt != "msg_u1" ||
		got.Tool != "bash" || got.CallID != "call_4" || got.Cwd != "/proj" || string(got.ToolInput) != `{"command":"echo hi","description":"d"}` {
		t.Errorf("the call: %s", stdin)
	}
	oc := got.OpenCode
	if oc.Plugin != 1 || oc.Instance == "" || oc.Seq != 1 {
		t.Errorf("protocol, instance, seq: %s", stdin)
	}
	// OpenCode's own figure for the priced message; the child's message,
	// priced at 0, goes as tokens for runaway to price.
	if oc.Cost != 0.15 || len(oc.Unpriced) != 1 || oc.Unpriced[0]["model"] != "fake-1" || oc.Unpriced[0]["in"] != 100.0 || oc.Unpriced[0]["cc"] != 5.0 {
		t.Errorf("cost and unpriced tokens: %s", stdin)
	}
	if oc.Tokens["in"] != 40100 || oc.Tokens["out"] != 6010 || oc.Tokens["cr"] != 60000 || oc.Tokens["cc"] != 5 {
		t.Errorf("tokens (reasoning counts as output): %v", oc.Tokens)
	}
	if strings.Join(oc.Models, ",") != "gpt-4.1,fake-1" {
		t.Errorf("models: %v", oc.Models)
	}
	// Each finished call once; an error or a non-zero exit is a failure.
	results, _ := json.Marshal(oc.Results)
	if want := `[{"id":"call_1","failed":true},{"id":"call_2","failed":true},{"id":"call_3","failed":false}]`; string(results) != want {
		t.Errorf("results: %s, want %s", results, want)
	}
}

func TestOpenCodePluginThrowsRunawaysDeny(t *testing.T) {
	for _, hook := range []string{"tool.execute.before", "chat.params"} {
		o, stdin := runPlugin(t, `echo '{"deny":"runaway: no more","stop":true,"message":"runaway: 80% spent"}'`, hook)
		if o.Error == nil || *o.Error != "runaway: no more" {
			t.Errorf("%s: threw %v, want runaway's reason", hook, o.Error)
		}
		if len(o.Toasts) != 1 || o.Toasts[0] != "runaway: 80% spent" {
			t.Errorf("%s: toasts %q, want the message for the person", hook, o.Toasts)
		}
		if hook == "chat.params" && !strings.Contains(string(stdin), `"hook_event_name":"chat.params","session_id":"ses_root"`) {
			t.Errorf("chat.params sent %s", stdin)
		}
	}
}

// Nothing but a deny from runaway blocks OpenCode: a missing, crashing,
// hanging or babbling runaway lets the call go on, and a hung one is given
// up on at the plugin's timeout.
func TestOpenCodePluginFailsOpen(t *testing.T) {
	for name, script := range map[string]string{
		"missing":      "",
		"exit 2":       "echo 'blocked' >&2; exit 2",
		"not json":     "echo 'Welcome to your shell!'; echo '{\"deny\":\"x\"}'",
		"deny not str": `echo '{"deny":true}'`,
		"no decision":  "exit 0",
		"hangs":        "exec sleep 600",
		"killed":       "kill -9 $$",
	} {
		t.Run(name, func(t *testing.T) {
			timeout := 2 * time.Minute
			if name == "hangs" {
				timeout = 10 * time.Second
			}
			o, _ := runPluginWithin(t, script, "tool.execute.before", timeout)
			if o.Error != nil {
				t.Errorf("threw %q, want the call to go on", *o.Error)
			}
			// Given up on long before the hang ends, even on a busy machine.
			if o.MS > 300_000 {
				t.Errorf("took %d ms; the plugin's timeout is 10 s here", o.MS)
			}
		})
	}
}

func TestOpenCodePluginNamesItsBinary(t *testing.T) {
	bin := `/home/o'neil/my "bins"/runaway`
	p := OpenCodePlugin(bin)
	if !IsOpenCodePlugin(p) {
		t.Fatal("the plugin does not start with its marker")
	}
	if got := OpenCodePluginBinary(p); got != bin {
		t.Errorf("OpenCodePluginBinary = %q, want %q", got, bin)
	}
	if strings.Contains(string(p), "{{") {
		t.Error("a placeholder was left in the plugin")
	}
	if IsOpenCodePlugin([]byte("// my own plugin\n")) || OpenCodePluginBinary([]byte("export const X = 1\n")) != "" {
		t.Error("another file taken for runaway's plugin")
	}
}

func TestOpenCodeInstallsAtStart(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if yes, why := OpenCodeInstallsAtStart(dir); !yes || !strings.Contains(why, "node_modules") {
		t.Errorf("empty folder: %v %q", yes, why)
	}
	if err := os.Mkdir(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if yes, why := OpenCodeInstallsAtStart(dir); !yes || !strings.Contains(why, OpenCodeSDK) {
		t.Errorf("no lock: %v %q", yes, why)
	}
	write("package-lock.json", string(OpenCodeLock()))
	if yes, why := OpenCodeInstallsAtStart(dir); yes {
		t.Errorf("setup's lock: still installs (%s)", why)
	}
	write("package.json", `{"dependencies":{"left-pad":"1"}}`)
	if yes, why := OpenCodeInstallsAtStart(dir); !yes || !strings.Contains(why, "left-pad") {
		t.Errorf("a dependency the lock lacks: %v %q", yes, why)
	}
}

// The plugin reads each response's usage from the model's stream: the tool
// call waits for the usage of the response that made it (here 150 ms after
// the call; the plugin waits up to half its timeout, 250 ms here), and runaway gets it priced with OpenCode's cost for the model.
// The tag that names the session never leaves OpenCode, and OpenCode reads
// the stream whole.
func TestOpenCodePluginReadsUsageOnTheWire(t *testing.T) {
	o, stdin := runPlugin(t, "exit 0", "wire")
	if o.Error != nil {
		t.Fatalf("the plugin threw %q", *o.Error)
	}
	var got struct {
		OpenCode struct {
			Wire struct {
				USD      float64 `json:"usd"`
				Requests int     `json:"requests"`
			} `json:"wire"`
		} `json:"opencode"`
	}
	if err := json.Unmarshal(stdin, &got); err != nil {
		t.Fatalf("runaway got %q: %v", stdin, err)
	}
	// 40k uncached at $3/M, 60k cached at $0.30/M, 5k out at $15/M.
	if w := got.OpenCode.Wire; w.Requests != 1 || w.USD < 0.2129 || w.USD > 0.2131 {
		t.Errorf("wire: %+v, want 1 request at $0.213; runaway got %s", w, stdin)
	}
	if o.MS < 140 {
		t.Errorf("the tool call went to runaway after %d ms, before the response's usage came (150 ms)", o.MS)
	}
	if len(o.Sent) != 1 || o.Sent[0]["x-other"] != "kept" || o.Sent[0]["x-runaway-session"] != "" {
		t.Errorf("headers the provider got: %v, want OpenCode's without runaway's tag", o.Sent)
	}
}
