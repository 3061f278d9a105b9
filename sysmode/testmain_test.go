package sysmode

import (
	"os"
	"testing"

	"github.com/runaway-guard/runaway/testhome"
)

// Every test runs with its homes in a temporary folder, never a real one.
func TestMain(m *testing.M) { os.Exit(testhome.Main(m.Run)) }
