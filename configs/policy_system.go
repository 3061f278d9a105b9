package configs

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// In system mode the root-owned config is a ceiling: the person's own
// config file and the RUNAWAY_* variables (the agent's environment) may
// make a limit stricter, never looser, and never move runaway's files.

// loadSystemPolicy reads the system config at path, then lets the user's
// config (read without the setgid group: its path comes from the
// environment) and the environment tighten it.
func loadSystemPolicy(path, userPath string, getenv func(string) string) (Policy, []error) {
	ceiling := DefaultPolicy()
	var problems []error
	if fields, err := ceiling.readFile(path); err != nil {
		ceiling = DefaultPolicy()
		problems = append(problems, err)
	} else {
		problems = append(problems, fields...)
	}
	problems = append(problems, ceiling.check()...)
	// The price catalogue is root's too, beside the system config; the
	// messages that send the person to the config name root's.
	ceiling.File = path
	ceiling.PricesFile = filepath.Join(filepath.Dir(path), ownfiles.PricesFileName)

	want := ceiling
	var user []byte
	var uerr error
	_ = sysmode.AsUser(func() { user, uerr = readUserConfig(userPath) })
	if uerr != nil {
		problems = append(problems, uerr)
	}
	if len(user) > 0 {
		if err := want.mergeJSON(user); err != nil {
			want = ceiling
			problems = append(problems, fmt.Errorf("your config %s: %w", userPath, err))
		}
	}
	problems = append(problems, want.applyEnv(getenv)...)
	problems = append(problems, want.check()...)
	return Tighten(ceiling, want), problems
}

// readUserConfig reads the person's own config.json, nil when there is none.
func readUserConfig(path string) ([]byte, error) {
	f, err := ownfiles.OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

func (p *Policy) mergeJSON(data []byte) error {
	if TooDeep(data) >= 0 {
		return fmt.Errorf("nests deeper than %d levels", MaxNesting)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(std)) == "" {
		return nil
	}
	return json.Unmarshal(std, p)
}

// Tighten is ceiling with every limit of want that is stricter: a lower
// cap (a cap where ceiling has none), a lower warning share, a shorter run,
// escalation and ending the agent at a cap on. What is no limit — the notify command, prices and their file — stays the
// ceiling's: a lower price would be a higher cap.
func Tighten(ceiling, want Policy) Policy {
	p := ceiling
	lowerCap := func(c, w float64) float64 {
		if w > 0 && (c <= 0 || w < c) {
			return w
		}
		return c
	}
	p.SessionCapUSD = lowerCap(ceiling.SessionCapUSD, want.SessionCapUSD)
	p.PromptCapUSD = lowerCap(ceiling.PromptCapUSD, want.PromptCapUSD)
	p.DailyCapUSD = lowerCap(ceiling.DailyCapUSD, want.DailyCapUSD)
	p.WarnAt = min(ceiling.WarnAt, want.WarnAt)
	p.FailureRun = min(ceiling.FailureRun, want.FailureRun)
	p.RepeatRun = min(ceiling.RepeatRun, want.RepeatRun)
	p.Escalate = ceiling.Escalate || want.Escalate
	p.EndAgent = ceiling.EndAgent || want.EndAgent
	return p
}
