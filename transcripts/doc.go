// Package transcripts reads the session files that Claude Code, Codex and
// Gemini CLI write, incrementally: what each API response used, which tool calls failed,
// and (optionally) the tool calls themselves.
//
// # Reading
//
// The guard keeps one Position per session in its state and calls
//
//	more, err := transcripts.ReadClaude(ctx, transcriptPath, &pos, sink) // Claude Code
//	more, err := transcripts.ReadCodex(ctx, rolloutPath, &pos, sink)     // Codex
//	more, err := transcripts.ReadGemini(ctx, sessionPath, &pos, sink)    // Gemini CLI
//
// on every hook run. Only the bytes appended since the last call are read.
// Each record found is handed to the Sink's functions; a nil function is a
// record kind the caller does not want (ToolCall nil also skips the parsing
// of tool_use blocks). ReadClaude also reads the session's subagent files
// (<session>/subagents/**/agent-*.jsonl and the older agent-*.jsonl files
// beside the main file that carry the session's id); ReadCodex also reads
// the rollouts of the session's subagents and forks (same root session id),
// found in the date folders of the same sessions/ tree; ReadGemini also reads
// the session's subagent files (chats/<session id>/*.jsonl, nested ones
// under chats/<subagent id>/).
//
// When ctx is done, reading stops between two lines, pos is left where it
// stopped and more is true: the next call goes on from there. A first read
// of a huge transcript is finished over several hook runs this way.
//
// # The contract
//
// Keep a running total by adding what each call yields:
//
//	tokens = tokens.Add(r.Usage).Sub(r.Counted)
//	spend += cost(r.Model, r.Usage) - cost(r.Model, r.Counted)
//
// For any way the files are cut into appends (a half-written last line
// included), wherever a deadline stops a read, and whether a file was
// meanwhile replaced by a copy of itself or cut short and written again, the
// responses and tool results yielded by all the incremental calls are exactly
// the ones one full read of the final bytes yields, in the same order within
// each file, so the sums are equal. A file that was replaced or shrank is read
// again from the start: a 64-bit key of every response (message id + request
// id) and tool result (its call id) yielded is kept, in the Sink's Counted or
// else in the Position, and the lines before the furthest point the file was
// ever read (FilePos.Top) yield only what it does not hold; Codex keeps the
// thread's cumulative count across it. Tool calls, which are found rather
// than counted, are yielded again. This holds because every decision is made
// per complete line from state that lives in Position (and Counted) itself
// (the property test in incremental_test.go cuts real transcripts at random
// points, replaces and truncates files, to check it). Across files the order can
// differ: a subagent file found later is read later.
//
// A Position passed with another main file than its own is the same
// session's transcript gone elsewhere: moved (Claude Code moves it on
// worktree enter and exit, and /cd) or copied to go on in another folder
// (a session resumed there). The files inside the main file's folder are
// read again at their new place from the start, as replaced files are:
// only what they did not yield before is yielded. The caller passes a
// Position only to the files of its own session.
//
// Response.Counted is the usage an earlier record already reported for the
// same API response: Claude Code writes one line per content block, each with
// the response's usage, and the usage on early lines can be partial. The
// largest usage seen for a response wins; a later, larger line yields a
// record with Usage = the new usage and Counted = what was counted before, so
// subtracting Counted keeps the running total exact without the caller
// remembering anything. Pricing the difference as cost(Usage)−cost(Counted)
// (not cost(Usage−Counted)) keeps whole-request rules such as long-context
// tiers right.
//
// Usage fields mean the same for both agents: Input excludes cache reads and
// cache writes, Output includes reasoning. A Codex record is the growth of the
// thread's cumulative usage (token_usage_record where the version writes it,
// else token_count when its total grew), so the lagging and repeated
// token_count events are never counted twice, and the parent history a
// subagent or fork rollout replays at its head is not counted at all. A
// Gemini CLI record is a message's tokens (input with its cached part taken
// out, thoughts added to output), the last ones per message id: Gemini CLI
// writes a message again each time it changes, and its $set.messages
// snapshots and resumes repeat earlier ones.
//
// # Other functions
//
// Each agent's session format is a Format in Formats, in the agent's own
// file (claude.go, codex.go, gemini.go): Detect tells the agents' files
// apart by content, Format.SessionFiles lists the files a read covers;
// ReadCodexMeta reads a rollout's thread, root and parent ids.
//
// # Bounds
//
// Memory is bounded whatever the file size: lines are streamed through a
// buffer that grows to hold a long line (it keeps at most 4 MiB for the
// lines after it) and a line longer than MaxLine (64 MiB) is skipped. A Position
// holds about 170 bytes per file (the last few responses of a Claude file
// included; 3.6 KB for a session with 20 subagents), plus, without a
// Sink.Counted, the 8-byte key of each response and tool result counted (11
// bytes in JSON: 22 KB for a session of 1,000 calls); it serialises to JSON
// for the guard's state file (the guard keeps the keys in a file of its own,
// so that its state stays small).
// A file that shrank or was replaced (other inode, or its first bytes
// changed) is read again from the start, without yielding what it yielded
// before. .jsonl.zst rollouts (archived by Codex; they do not grow) are
// read only where Unzstd is set, as replay sets it, from the start on
// every read; the hook gets a *CompressedError (see archive.go).
//
// Dedupe of Claude responses is per file: one response's lines are written
// next to each other in one file (the largest usage of the last few wins);
// a response or tool result that comes back later in the same file is not
// yielded again. A Codex tool call's outcome is taken from
// the first of item_completed (CommandExecution), exec_command_end,
// patch_apply_end, or an output that states an exit code (or says a hook
// blocked the call); a call still running when its output was written
// waits for its end event.
package transcripts
