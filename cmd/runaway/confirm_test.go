package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestConfirm(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		yes      bool
		input    string
		want     error
		shown    bool // the diff and the question were printed
	}{
		{"--yes needs nothing", false, true, "", nil, false},
		{"no terminal refuses", false, false, "y\n", &userError{}, false},
		{"terminal y", true, false, "y\n", nil, true},
		{"terminal yes", true, false, "YES\n", nil, true},
		{"terminal n", true, false, "n\n", errCancelled, true},
		{"terminal enter", true, false, "\n", errCancelled, true},
		{"terminal closed", true, false, "", errCancelled, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := isTerminal
			isTerminal = func(any) bool { return tt.terminal }
			defer func() { isTerminal = old }()
			var out bytes.Buffer
			cmd := &cobra.Command{}
			cmd.SetIn(strings.NewReader(tt.input))
			cmd.SetOut(&out)
			err := confirm(cmd, tt.yes, "setup", "--- a\n+++ b\n")
			var ue *userError
			switch {
			case tt.want == nil && err != nil, tt.want != nil && err == nil:
				t.Fatalf("got %v, want %v", err, tt.want)
			case tt.want == errCancelled && err != errCancelled:
				t.Fatalf("got %v, want cancelled", err)
			case tt.want != nil && !errors.As(err, &ue):
				t.Fatalf("got %T", err)
			}
			if shown := strings.Contains(out.String(), "+++ b\napply these changes? [y/N] "); shown != tt.shown {
				t.Fatalf("output %q", out.String())
			}
		})
	}
}
