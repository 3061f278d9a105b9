// runaway's guard for OpenCode (plugin protocol 1). Written by `runaway setup`; `runaway remove` deletes it.
//
// Before every tool call and every model request OpenCode makes, this plugin runs runaway with the
// call and what OpenCode reported of the session (its cost, its tokens, the tool calls that
// finished) as JSON on stdin. When runaway denies, the plugin throws its reason: OpenCode blocks the
// tool call and hands the reason to the model, or, before a model request, ends the session before it
// spends more. Whatever else happens (runaway missing, slow, crashing, answering garbage) OpenCode
// goes on unguarded; runaway's error log and `runaway doctor` say why.
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
    if (!s) sessions.set(id, (s = { messages: new Map(), results: [], finished: new Set(), prompt: "" }))
    return s
  }

  // report sums the session's assistant messages: what OpenCode priced, and the tokens of each
  // message it priced at 0 (a model without a price), which runaway prices itself, one request at a
  // time (prices can depend on a request's size).
  const report = (s, results) => {
    const tokens = { in: 0, out: 0, cr: 0, cc: 0 }
    const unpriced = []
    const models = []
    let cost = 0
    for (const m of s.messages.values()) {
      const t = m.tokens || {}
      const u = { in: num(t.input), out: num(t.output) + num(t.reasoning), cr: num(t.cache?.read), cc: num(t.cache?.write) }
      for (const k in u) tokens[k] += u[k]
      if (m.model && !models.includes(m.model)) models.push(m.model)
      if (num(m.cost) > 0) cost += num(m.cost)
      else if (u.in + u.out + u.cr + u.cc > 0) unpriced.push({ model: m.model, ...u })
    }
    return { plugin: PROTOCOL, instance, seq: ++seq, cost_usd: cost, tokens, unpriced, models, results }
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
      await check("tool.execute.before", input?.sessionID, { tool_name: input?.tool, tool_input: output?.args ?? {}, tool_use_id: input?.callID })
    },
    "chat.params": async (input) => {
      await check("chat.params", input?.sessionID, { model: input?.model?.id, agent: input?.agent })
    },
  }
}
