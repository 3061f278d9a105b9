// runaway's guard for OpenCode (plugin protocol 1). Written by `runaway setup`; `runaway remove` deletes it.
//
// Before every tool call and every model request OpenCode makes, this plugin runs runaway with the
// call and what OpenCode reported of the session (its cost, its tokens, the tool calls that
// finished) as JSON on stdin. When runaway denies, the plugin throws its reason: OpenCode blocks the
// tool call and hands the reason to the model, or, before a model request, ends the session before it
// spends more. Whatever else happens (runaway missing, slow, crashing, answering garbage) OpenCode
// goes on unguarded; runaway's error log and `runaway doctor` say why.
//
// OpenCode prices a step only after its tool has run, so the plugin also reads each response's usage
// from the model's stream itself: requests are tagged with their session (chat.headers), fetch is
// wrapped to read a copy of each tagged response, and a tool call waits for the usage of the
// response that made it, so that the call that crosses a cap is refused before it runs.
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"

const RUNAWAY = "{{RUNAWAY}}"
const TIMEOUT_MS = {{TIMEOUT_MS}}
const PROTOCOL = 1
const MAX_ANSWER = 1 << 20

// ask runs `runaway hook opencode` with payload on stdin and resolves to its answer, or to null
// when there is none in time.
function ask(payload) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    let timer
    const finish = (v) => {
      if (!done) {
        done = true
        clearTimeout(timer)
        resolve(v)
      }
    }
    let child
    try {
      child = spawn(RUNAWAY, ["hook", "opencode"], { stdio: ["pipe", "pipe", "ignore"], windowsHide: true })
    } catch {
      return finish(null)
    }
    timer = setTimeout(() => {
      try {
        child.kill("SIGKILL")
      } catch {}
      finish(null)
    }, TIMEOUT_MS)
    child.on("error", () => finish(null))
    child.stdout.on("data", (d) => {
      out += d
      if (out.length > MAX_ANSWER) finish(null)
    })
    child.on("close", () => {
      try {
        finish(out.trim() ? JSON.parse(out) : {})
      } catch {
        finish(null)
      }
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload) + "\n")
  })
}

const num = (v) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0)

// The header that tags a model request with its session, and how long a tool call waits for the
// usage of the response that made it (it comes with the stream's end, just after the call).
const SESSION_HEADER = "x-runaway-session"
const USAGE_WAIT_MS = Math.min(3000, Math.floor(TIMEOUT_MS / 2))

// wireUsage reads the usage one server-sent event reports, in runaway's terms (in: uncached input,
// out: output with reasoning, cr: cache reads, cc: cache writes), or null: OpenAI's chat completions
// and responses, Anthropic's messages and Gemini's streams. Later events of a response replace the
// counts they carry.
function wireUsage(j, u) {
  const o = j?.usage
  if (o && typeof o === "object" && ("prompt_tokens" in o || "completion_tokens" in o)) {
    const cr = num(o.prompt_tokens_details?.cached_tokens)
    return { in: Math.max(0, num(o.prompt_tokens) - cr), out: num(o.completion_tokens), cr, cc: 0 }
  }
  const r = j?.type === "response.completed" || j?.type === "response.incomplete" ? j.response?.usage : null
  if (r) {
    const cr = num(r.input_tokens_details?.cached_tokens)
    return { in: Math.max(0, num(r.input_tokens) - cr), out: num(r.output_tokens), cr, cc: 0 }
  }
  const a = j?.type === "message_start" ? j.message?.usage : j?.type === "message_delta" ? j.usage : null
  if (a) {
    const n = { ...(u || { in: 0, out: 0, cr: 0, cc: 0 }) }
    if ("input_tokens" in a) n.in = num(a.input_tokens)
    if ("cache_read_input_tokens" in a) n.cr = num(a.cache_read_input_tokens)
    if ("cache_creation_input_tokens" in a) n.cc = num(a.cache_creation_input_tokens)
    if ("output_tokens" in a) n.out = num(a.output_tokens)
    return n
  }
  const g = j?.usageMetadata
  if (g) {
    const cr = num(g.cachedContentTokenCount)
    return { in: Math.max(0, num(g.promptTokenCount) - cr), out: num(g.candidatesTokenCount) + num(g.thoughtsTokenCount), cr, cc: 0 }
  }
  return null
}

// readUsage follows a copy of a response body's server-sent events into rec.usage; rec.done once
// the body ended (or failed).
async function readUsage(body, rec) {
  try {
    const reader = body.getReader()
    const dec = new TextDecoder()
    let buf = ""
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      buf += dec.decode(value, { stream: true })
      let i
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim()
        buf = buf.slice(i + 1)
        if (!line.startsWith("data:")) continue
        const text = line.slice(5).trim()
        if (!text.startsWith("{")) continue
        try {
          const u = wireUsage(JSON.parse(text), rec.usage)
          if (u) rec.usage = u
        } catch {}
      }
      if (buf.length > 1 << 20) buf = ""
    }
  } catch {}
  rec.done = true
}

export const RunawayGuard = async (ctx) => {
  const instance = randomUUID()
  let seq = 0
  const parents = new Map() // session id -> parent session id (subagents)
  const sessions = new Map() // root session id -> what OpenCode reported of it

  const root = (id) => {
    for (let i = 0; i < 16 && parents.get(id); i++) id = parents.get(id)
    return id
  }
  const session = (id) => {
    let s = sessions.get(id)
    if (!s) sessions.set(id, (s = { messages: new Map(), results: [], finished: new Set(), prompt: "", wire: [] }))
    return s
  }
  const models = new Map() // "<agent> <session id>" -> { id, cost } of its latest model request (chat.params)
  const latest = new Map() // session id -> the record of its latest model request

  // The model's responses, read on the wire: each tagged request's response body is copied, and
  // its usage read from the copy. Anything unexpected leaves the response as it was.
  const fetch0 = globalThis.fetch
  if (typeof fetch0 === "function") {
    globalThis.fetch = async (input, init) => {
      let tag = null
      try {
        // The tag is for this plugin only: it is taken off before the request leaves.
        const h = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined))
        tag = h.get(SESSION_HEADER)
        if (tag) {
          h.delete(SESSION_HEADER)
          if (init?.headers || !(input instanceof Request)) init = { ...init, headers: h }
          else input = new Request(input, { headers: h })
        }
      } catch {
        tag = null
      }
      const res = await fetch0(input, init)
      try {
        if (!tag || !res.body) return res
        // "<agent> <session id>": the title agent's request is billed too, but no tool call waits for it.
        const cut = tag.indexOf(" ")
        const agent = tag.slice(0, cut)
        const id = tag.slice(cut + 1)
        const m = models.get(agent + " " + id) || {}
        const rec = { model: m.id || "", cost: m.cost, usage: null, done: false }
        const s = session(root(id))
        s.wire.push(rec)
        if (s.wire.length > 4096) s.wire.splice(0, s.wire.length - 4096)
        if (agent !== "title") latest.set(id, rec)
        const [mine, theirs] = res.body.tee()
        readUsage(mine, rec)
        return new Response(theirs, { status: res.status, statusText: res.statusText, headers: res.headers })
      } catch {
        return res
      }
    }
  }

  // wire prices the session's responses as read on the wire: with the cost OpenCode has for the
  // model (per million tokens), or, where it has none, as tokens runaway prices.
  const wire = (s) => {
    let usd = 0
    const unpriced = []
    let requests = 0
    for (const r of s.wire) {
      const u = r.usage
      if (!u) continue
      requests++
      const c = r.cost || {}
      const price = num(c.input) + num(c.output) + num(c.cache?.read) + num(c.cache?.write)
      if (price > 0) usd += (u.in * num(c.input) + u.out * num(c.output) + u.cr * num(c.cache?.read) + u.cc * num(c.cache?.write)) / 1e6
      else unpriced.push({ model: r.model, ...u })
    }
    return { usd, unpriced, requests }
  }

  // settled waits, bounded, for the usage of the session's latest response.
  const settled = async (id) => {
    const rec = latest.get(id)
    const start = Date.now()
    while (rec && !rec.usage && !rec.done && Date.now() - start < USAGE_WAIT_MS) await new Promise((r) => setTimeout(r, 5))
  }

  // report sums the session's assistant messages: what OpenCode priced, and the tokens of each
  // message it priced at 0 (a model without a price), which runaway prices itself, one request at a
  // time (prices can depend on a request's size).
  const report = (s, results) => {
    const tokens = { in: 0, out: 0, cr: 0, cc: 0 }
    const unpriced = []
    const modelIDs = []
    let cost = 0
    for (const m of s.messages.values()) {
      const t = m.tokens || {}
      const u = { in: num(t.input), out: num(t.output) + num(t.reasoning), cr: num(t.cache?.read), cc: num(t.cache?.write) }
      for (const k in u) tokens[k] += u[k]
      if (m.model && !modelIDs.includes(m.model)) modelIDs.push(m.model)
      if (num(m.cost) > 0) cost += num(m.cost)
      else if (u.in + u.out + u.cr + u.cc > 0) unpriced.push({ model: m.model, ...u })
    }
    return { plugin: PROTOCOL, instance, seq: ++seq, cost_usd: cost, tokens, unpriced, models: modelIDs, results, wire: wire(s) }
  }

  // check asks runaway about one event of session id and throws its deny.
  const check = async (event, id, fields) => {
    let answer = null
    try {
      const rootID = root(id)
      const s = session(rootID)
      const results = s.results.splice(0)
      const payload = { hook_event_name: event, session_id: rootID, cwd: ctx.directory, ...fields }
      if (rootID !== id) payload.agent_id = id
      if (s.prompt) payload.prompt_id = s.prompt
      payload.opencode = report(s, results)
      answer = await ask(payload)
    } catch {
      return
    }
    if (!answer || typeof answer !== "object") return
    if (typeof answer.message === "string" && answer.message) {
      Promise.resolve()
        .then(() => ctx.client.tui.showToast({ body: { title: "runaway", message: answer.message, variant: "warning" } }))
        .catch(() => {})
    }
    if (typeof answer.deny === "string" && answer.deny) throw new Error(answer.deny)
  }

  return {
    event: async ({ event }) => {
      try {
        const p = event.properties || {}
        switch (event.type) {
          case "session.created":
          case "session.updated":
            if (p.info?.id && p.info.parentID) parents.set(p.info.id, p.info.parentID)
            break
          case "session.deleted":
            if (p.info?.id) sessions.delete(p.info.id)
            break
          case "message.updated": {
            const m = p.info
            if (!m?.sessionID || !m.id) break
            const s = session(root(m.sessionID))
            if (m.role === "assistant") s.messages.set(m.id, { model: m.modelID || "", cost: m.cost, tokens: m.tokens })
            else if (m.role === "user") s.prompt = m.id
            break
          }
          case "message.part.updated": {
            const part = p.part
            if (part?.type !== "tool" || !part.sessionID || !part.callID) break
            const st = part.state || {}
            if (st.status !== "completed" && st.status !== "error") break
            const s = session(root(part.sessionID))
            if (s.finished.has(part.callID)) break
            s.finished.add(part.callID)
            const exit = st.metadata?.exit
            s.results.push({ id: part.callID, failed: st.status === "error" || (typeof exit === "number" && exit !== 0) })
            if (s.results.length > 256) s.results.splice(0, s.results.length - 256)
            break
          }
        }
      } catch {}
    },
    "tool.execute.before": async (input, output) => {
      try {
        await settled(input?.sessionID)
      } catch {}
      await check("tool.execute.before", input?.sessionID, { tool_name: input?.tool, tool_input: output?.args ?? {}, tool_use_id: input?.callID })
    },
    "chat.params": async (input) => {
      try {
        if (input?.sessionID) models.set(`${input.agent || ""} ${input.sessionID}`, { id: input.model?.id || "", cost: input.model?.cost })
      } catch {}
      await check("chat.params", input?.sessionID, { model: input?.model?.id, agent: input?.agent })
    },
    "chat.headers": async (input, output) => {
      try {
        if (input?.sessionID && output?.headers) output.headers[SESSION_HEADER] = `${input.agent || ""} ${input.sessionID}`
      } catch {}
    },
  }
}
