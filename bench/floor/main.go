// Command floor is the hook benchmark's baseline: the least a Go hook can do
// (decode the call on stdin and print "{}"), so the benchmark shows what
// runaway costs on top of starting a Go process.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	var v map[string]any
	_ = json.NewDecoder(os.Stdin).Decode(&v)
	os.Stdout.WriteString("{}\n")
}
