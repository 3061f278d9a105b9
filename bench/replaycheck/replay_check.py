#!/usr/bin/env python3
"""Independent check of `runaway replay --json` on a Claude Code session.

Written apart from runaway's Go code, from the transcript format alone: it
reads the main transcript and its subagents' files, counts each API
response once with its largest usage, prices it with the rates given here
(USD per million tokens), orders every record by time, and computes where
the loop (identical calls in a row), failure (failed results in a row) and
spend (warn at warn_at of the cap, stop at the cap, then the cap raised by
as much again) wires would have fired. Then it runs runaway on the same
file and compares call numbers, wires, decisions and spend to the cent.

usage: replay_check.py RUNAWAY TRANSCRIPT --cap USD --failures N --repeats N
"""
import argparse, glob, json, os, subprocess, sys

RATES = {  # input, output, cache read, 5m write, 1h write
    "claude-opus-4-7": (5, 25, 0.5, 6.25, 10),
    "claude-opus-4-6": (5, 25, 0.5, 6.25, 10),
    "claude-opus-4-5": (5, 25, 0.5, 6.25, 10),
    "claude-sonnet-4-5": (3, 15, 0.3, 3.75, 6),
    "claude-sonnet-4-6": (3, 15, 0.3, 3.75, 6),
    "claude-haiku-4-5": (1, 5, 0.1, 1.25, 2),
    "claude-sonnet-4": (3, 15, 0.3, 3.75, 6),
    "claude-opus-4": (15, 75, 1.5, 18.75, 30),
    "claude-opus-4-1": (15, 75, 1.5, 18.75, 30),
}
# Whole request at these rates above 200,000 input tokens (cache included).
LONG = {"claude-sonnet-4": (6, 22.5, 0.6, 7.5, 12), "claude-sonnet-4-5": (6, 22.5, 0.6, 7.5, 12)}

def norm(model):
    m = model.lower()
    parts = m.split("-")
    if parts and len(parts[-1]) == 8 and parts[-1].isdigit():
        m = "-".join(parts[:-1])
    return m

def cost(model, u):
    if not u:
        return 0.0
    i, o, r, w5, w1 = RATES[norm(model)]
    cc = u.get("cache_creation_input_tokens") or 0
    split = u.get("cache_creation") or {}
    s5, s1 = split.get("ephemeral_5m_input_tokens") or 0, split.get("ephemeral_1h_input_tokens") or 0
    write = max(cc, s5 + s1)
    if norm(model) in LONG and (u.get("input_tokens") or 0) + (u.get("cache_read_input_tokens") or 0) + write > 200_000:
        i, o, r, w5, w1 = LONG[norm(model)]
    one_h = min(s1, write)
    ws = ((u.get("server_tool_use") or {}).get("web_search_requests") or 0)
    return ((u.get("input_tokens") or 0) * i + (u.get("output_tokens") or 0) * o +
            (u.get("cache_read_input_tokens") or 0) * r + (write - one_h) * w5 + one_h * w1) / 1e6 + ws * 0.01

def total(u):
    u = u or {}
    return sum((u.get(k) or 0) for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"))

def files_of(main):
    sid = os.path.basename(main)[:-len(".jsonl")]
    folder = os.path.dirname(main)
    subs = sorted(glob.glob(os.path.join(folder, sid, "subagents", "**", "agent-*.jsonl"), recursive=True))
    # The older layout: agent-*.jsonl beside the main file, naming the session.
    for f in sorted(glob.glob(os.path.join(folder, "agent-*.jsonl"))):
        with open(f, encoding="utf-8") as fh:
            first = fh.readline()
        try:
            if json.loads(first).get("sessionId") == sid:
                subs.append(f)
        except ValueError:
            pass
    return [main] + subs

def events(main):
    out, seen = [], {}
    files = files_of(main)
    for f in files:
        last = ""
        for n, line in enumerate(open(f, encoding="utf-8")):
            try:
                d = json.loads(line)
            except ValueError:
                continue
            t = d.get("timestamp") or last
            last = t
            msg = d.get("message") or {}
            if d.get("type") == "assistant" and isinstance(msg, dict):
                model = msg.get("model") or ""
                if model == "<synthetic>":
                    continue
                u = msg.get("usage")
                if u:
                    key = (f, msg.get("id"), d.get("requestId"))
                    old = seen.get(key)
                    if old is None or total(u) > total(old):
                        out.append((t, "resp", cost(model, u) - cost(model, old)))
                        seen[key] = u
                for b in msg.get("content") or []:
                    if isinstance(b, dict) and b.get("type") == "tool_use":
                        inp = dict(b.get("input") or {})
                        inp.pop("description", None)
                        out.append((t, "call", (b.get("id"), b.get("name"), json.dumps(inp, sort_keys=True))))
            elif d.get("type") == "user" and isinstance(msg, dict) and isinstance(msg.get("content"), list):
                for b in msg["content"]:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        out.append((t, "result", (b.get("tool_use_id"), bool(b.get("is_error")))))
    if len(files) > 1:
        out.sort(key=lambda e: e[0])  # stable: equal times keep file order
    return out

def replay(main, cap, warn_at, failures, repeats):
    spend, allowed, warned_cap, calls, fails = 0.0, 0.0, None, 0, 0
    recent, ours, decisions = [], set(), []
    for _, kind, v in events(main):
        if kind == "resp":
            spend += v
        elif kind == "result":
            tid, failed = v
            if tid in ours:
                ours.discard(tid)
            elif failed:
                fails += 1
            else:
                fails = 0
        else:
            calls += 1
            tid, name, fp = v
            got = []
            recent.append(name + "\0" + fp)
            recent = recent[-max(repeats, 9):]
            run = 0
            for x in reversed(recent):
                if x != recent[-1]:
                    break
                run += 1
            cyc = 0
            for p in (2, 3):
                tail = recent[-3 * p:]
                if len(tail) == 3 * p and all(tail[i] == tail[i - p] for i in range(p, 3 * p)) and len(set(tail[:p])) > 1:
                    cyc = p
                    break
            if run >= repeats or cyc:
                got.append(("loop", "ask"))
                recent = []
            if fails >= failures:
                got.append(("failure", "ask"))
                fails = 0
            c = cap + allowed
            if cap > 0 and spend >= c:
                got.append(("spend", "stop"))
                allowed += cap
            elif cap > 0 and spend >= warn_at * c and warned_cap != c:
                got.append(("spend", "warn"))
                warned_cap = c
            if any(d != "warn" for _, d in got):
                ours.add(tid)
            decisions += [(calls, w, d, round(spend, 2)) for w, d in got]
    return calls, decisions

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runaway")
    ap.add_argument("transcript")
    ap.add_argument("--cap", type=float, default=20)
    ap.add_argument("--warn-at", type=float, default=0.8)
    ap.add_argument("--failures", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    calls, want = replay(a.transcript, a.cap, a.warn_at, a.failures, a.repeats)
    out = subprocess.run([a.runaway, "replay", "--json", "--cap", str(a.cap), "--warn-at", str(a.warn_at),
                          "--failures", str(a.failures), "--repeats", str(a.repeats), a.transcript],
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    got = [(d["call"], d["wire"], d["decision"], round(d["spend_usd"], 2)) for d in r["decisions"]]
    print(f"calls: script {calls}, runaway {r['calls']}")
    for w in want:
        print("script ", w)
    ok = calls == r["calls"] and got == want
    if not ok:
        for g in got:
            print("runaway", g)
    print("MATCH" if ok else "DIFFERENT")
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()
