// Command runaway stops coding agents that run away: it is wired as a
// per-tool-call hook into Claude Code and Codex and answers "go on", "ask the
// person", "deny" or "stop the turn". See README.md.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:]))
}
