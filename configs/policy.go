// Package configs owns the files runaway reads and writes as configuration:
// runaway's own config file (the policy) and the agents' settings files.
package configs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// Policy is what the guard enforces. Every field is optional in the file;
// a zero cap means "no cap".
type Policy struct {
	// PricesFile is the imported price catalogue beside the config file
	// (`runaway prices update` writes it); not a config field.
	PricesFile string `json:"-"`
	// SessionCapUSD is the spend at which a session's turn is stopped.
	SessionCapUSD float64 `json:"session_cap_usd"`
	// WarnAt is the share of a cap at which the person is warned once (0.8 = 80%).
	WarnAt float64 `json:"warn_at"`
	// PromptCapUSD caps the spend since one prompt was first seen.
	PromptCapUSD float64 `json:"prompt_cap_usd"`
	// DailyCapUSD caps the spend of all sessions in one (local) day.
	DailyCapUSD float64 `json:"daily_cap_usd"`
	// FailureRun is how many failed tool results in a row make runaway ask.
	FailureRun int `json:"failure_run"`
	// RepeatRun is how many identical calls in a row make runaway ask.
	RepeatRun int `json:"repeat_run"`
	// Escalate ends the turn when a loop or failure wire triggers again in
	// the same prompt after its ask (Codex: its deny) was refused: with
	// nobody to answer (claude -p, codex exec) an ask alone stops nothing.
	Escalate bool `json:"escalate"`
	// EndAgent lets runaway end the agent process that ran the hook at a
	// spend stop the agent's hook answer cannot end (Codex: its hooks cannot
	// end a running turn, so the model would be asked again and again).
	// False: every later call is denied instead, and the model goes on
	// being asked.
	EndAgent bool `json:"end_agent"`
	// NotifyCommand is a shell command runaway starts, detached, whenever
	// it stops, asks or denies for a wire, with the event as JSON on stdin.
	NotifyCommand string `json:"notify_command,omitempty"`
	// Prices adds or overrides model prices; the pricing package defines
	// the shape of each value.
	Prices map[string]json.RawMessage `json:"prices,omitempty"`
}

// Defaults: what runaway enforces when the config says nothing.
const (
	DefaultSessionCapUSD = 20
	DefaultWarnAt        = 0.8
	DefaultFailureRun    = 5
	DefaultRepeatRun     = 5
)

// DefaultPolicy is the policy with no config file and no environment.
func DefaultPolicy() Policy {
	return Policy{
		SessionCapUSD: DefaultSessionCapUSD,
		WarnAt:        DefaultWarnAt,
		FailureRun:    DefaultFailureRun,
		RepeatRun:     DefaultRepeatRun,
		Escalate:      true,
		EndAgent:      true,
	}
}

// PolicyPath is runaway's config file: the system install's, else
// config.json in ownfiles.UserDirs().Config ($XDG_CONFIG_HOME/runaway).
func PolicyPath() string {
	return ownfiles.OwnDirs().ConfigFile()
}

// EnvPrefix starts the environment variables that override single fields:
// RUNAWAY_SESSION_CAP_USD=5 overrides session_cap_usd.
const EnvPrefix = "RUNAWAY_"

// LoadPolicy reads the config at path (JSON with comments), then applies the
// environment overrides read through getenv. It never fails: a file that
// does not parse leaves the defaults in place, a bad value leaves the
// default for its field, and each such problem is returned for the caller
// to log. The system install's config is a ceiling the environment and
// the person's own config can only lower (see loadSystemPolicy).
func LoadPolicy(path string, getenv func(string) string) (Policy, []error) {
	if l := sysmode.Real(); path == l.ConfigFile() && l.Installed() {
		return loadSystemPolicy(path, ownfiles.UserDirs().ConfigFile(), getenv)
	}
	p := DefaultPolicy()
	var problems []error
	if err := p.readFile(path); err != nil {
		p = DefaultPolicy()
		problems = append(problems, err)
	}
	problems = append(problems, p.applyEnv(getenv)...)
	problems = append(problems, p.check()...)
	if path != "" {
		p.PricesFile = filepath.Join(filepath.Dir(path), ownfiles.PricesFileName)
	}
	return p, problems
}

func (p *Policy) readFile(path string) error {
	// Anything but a regular file is refused without blocking: the hook
	// reads the config on every tool call, and a FIFO blocks in open(2), a
	// device may never end.
	f, err := ownfiles.OpenRegular(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var pe *fs.PathError
	if errors.Is(err, ownfiles.ErrNotRegular) && errors.As(err, &pe) {
		return fmt.Errorf("config %s is %v, using the defaults", path, pe.Err)
	}
	if err != nil {
		return fmt.Errorf("reading config: %w", err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("reading config %s: %w", path, err)
	}
	if TooDeep(data) >= 0 {
		return fmt.Errorf("config %s nests deeper than %d levels, using the defaults", path, MaxNesting)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return fmt.Errorf("config %s does not parse, using the defaults: %w", path, err)
	}
	if len(strings.TrimSpace(string(std))) == 0 {
		return nil
	}
	if err := json.Unmarshal(std, p); err != nil {
		return fmt.Errorf("config %s is not valid, using the defaults: %w", path, err)
	}
	return nil
}

// PolicyFields are the JSON names of the fields the environment can
// override, in the order people read them.
var PolicyFields = []string{"session_cap_usd", "warn_at", "prompt_cap_usd", "daily_cap_usd", "failure_run", "repeat_run", "escalate", "end_agent", "notify_command", "prices"}

// EnvName is the environment variable that overrides one field.
func EnvName(field string) string { return EnvPrefix + strings.ToUpper(field) }

// setField parses s into the field named by its JSON name.
func (p *Policy) setField(name, s string) error {
	s = strings.TrimSpace(s)
	float := func(dst *float64) error {
		v, err := strconv.ParseFloat(s, 64)
		if err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			// A NaN cap would compare false with any spend: no cap at all.
			err = errors.New("not a finite number")
		}
		if err == nil {
			*dst = v
		}
		return err
	}
	integer := func(dst *int) error {
		v, err := strconv.Atoi(s)
		if err == nil {
			*dst = v
		}
		return err
	}
	switch name {
	case "session_cap_usd":
		return float(&p.SessionCapUSD)
	case "warn_at":
		return float(&p.WarnAt)
	case "prompt_cap_usd":
		return float(&p.PromptCapUSD)
	case "daily_cap_usd":
		return float(&p.DailyCapUSD)
	case "failure_run":
		return integer(&p.FailureRun)
	case "repeat_run":
		return integer(&p.RepeatRun)
	case "escalate":
		v, err := strconv.ParseBool(s)
		if err == nil {
			p.Escalate = v
		}
		return err
	case "end_agent":
		v, err := strconv.ParseBool(s)
		if err == nil {
			p.EndAgent = v
		}
		return err
	case "notify_command":
		p.NotifyCommand = s
		return nil
	case "prices":
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			return err
		}
		p.Prices = m
		return nil
	}
	return fmt.Errorf("unknown field %q", name)
}

func (p *Policy) applyEnv(getenv func(string) string) []error {
	var problems []error
	for _, name := range PolicyFields {
		key := EnvName(name)
		v := getenv(key)
		if v == "" {
			continue
		}
		if err := p.setField(name, v); err != nil {
			problems = append(problems, fmt.Errorf("%s=%q ignored: %w", key, v, err))
		}
	}
	return problems
}

// check puts values that make no sense back to their defaults.
func (p *Policy) check() []error {
	var problems []error
	d := DefaultPolicy()
	if p.SessionCapUSD < 0 || p.PromptCapUSD < 0 || p.DailyCapUSD < 0 {
		problems = append(problems, errors.New("a negative cap means nothing; negative caps are off"))
		p.SessionCapUSD = max(p.SessionCapUSD, 0)
		p.PromptCapUSD = max(p.PromptCapUSD, 0)
		p.DailyCapUSD = max(p.DailyCapUSD, 0)
	}
	if p.WarnAt <= 0 || p.WarnAt > 1 {
		problems = append(problems, fmt.Errorf("warn_at %v is not a share above 0 and at most 1; using %v", p.WarnAt, d.WarnAt))
		p.WarnAt = d.WarnAt
	}
	if p.FailureRun < 2 {
		problems = append(problems, fmt.Errorf("failure_run %d is below 2; using %d", p.FailureRun, d.FailureRun))
		p.FailureRun = d.FailureRun
	}
	if p.RepeatRun < 2 {
		problems = append(problems, fmt.Errorf("repeat_run %d is below 2; using %d", p.RepeatRun, d.RepeatRun))
		p.RepeatRun = d.RepeatRun
	}
	return problems
}
