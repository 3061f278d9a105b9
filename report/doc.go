// Package report totals what every coding agent on this machine spent, from
// the agents' own session history, whether or not runaway guarded those
// sessions: Claude Code (with subagents), Codex (with subagents, forks and
// archived rollouts), Gemini CLI (with subagents) and OpenCode.
//
// # How a report is made
//
// Sources find the sessions of one agent (one file per agent: claude.go,
// codex.go, gemini.go, opencode.go). Each session is read with the same
// incremental readers the hook uses (package transcripts), and every API
// response is priced by the same Pricer, so a session's total here equals
// what `runaway replay` and the hook count for it.
//
// What a read yields is kept as buckets: per session and model, the tokens
// and dollars of each quarter hour (UTC). A quarter hour is the finest step
// any time zone's midnight falls on, so a day, week or month in any zone is
// a sum of whole buckets, and --timezone needs no second read.
//
// # Reading only what is new
//
// The buckets and the readers' positions are kept in a cache file in
// runaway's state folder. A second report reads each session file from
// where the first stopped; a file that did not change is not opened past
// its first bytes. A file that was replaced or cut short is read again from
// the start, and its session's buckets are made again. A different price
// table (an update, an override) or a new cache version makes everything
// read again.
//
// # Counting once
//
// A Claude Code transcript copied into another project (to resume a session
// there) repeats the original's responses, with their ids: a response is
// counted for the first session that yielded it, never again. (Other agents'
// response ids are not unique across sessions, and their files are not
// copied to be resumed.) A file reached twice (a link,
// a hard link) is read once. A link that leads out of the agent's folder is
// not followed; it is named in the report's notes.
package report
