package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

func init() { register(newVersionCmd) }

// Stamped by release builds (.goreleaser.yaml):
// -ldflags "-X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>".
var version, commit, date string

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print runaway's version, commit and build date",
		Example: `  runaway version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(cmd.OutOrStdout(), versionText(buildInfo()))
			return nil
		},
	}
}

// build is what versionText prints.
type build struct {
	version, commit, date string
	goVersion, platform   string
}

// buildInfo is this binary's build: the stamped values, else what the Go
// toolchain recorded (a module version with `go install …@vX`, the VCS
// revision and time in a checkout), else "devel" and "unknown".
func buildInfo() build {
	b := build{version: version, commit: commit, date: date, goVersion: runtime.Version(), platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b.filled()
	}
	if v := info.Main.Version; b.version == "" && v != "" && v != "(devel)" {
		b.version = v
	}
	var rev, when, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "-dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if b.version == "" && rev != "" {
		b.version = "devel-" + rev + modified
	}
	if b.commit == "" {
		b.commit = rev + modified
	}
	if b.date == "" {
		b.date = when
	}
	return b.filled()
}

func (b build) filled() build {
	if b.version == "" {
		b.version = "devel"
	}
	if b.commit == "" {
		b.commit = "unknown"
	}
	if b.date == "" {
		b.date = "unknown"
	}
	return b
}

// versionText is `runaway version`'s output; its first line is
// "runaway <version>" (doctor reads it).
func versionText(b build) string {
	var s strings.Builder
	fmt.Fprintf(&s, "runaway %s\n", b.version)
	fmt.Fprintf(&s, "commit  %s\n", b.commit)
	fmt.Fprintf(&s, "built   %s\n", b.date)
	fmt.Fprintf(&s, "go      %s %s\n", b.goVersion, b.platform)
	return s.String()
}
