// Package configs owns the files runaway reads and writes as configuration:
// runaway's own config file (the policy) and the agents' settings files.
package configs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/sysmode"
)

// Policy is what the guard enforces. Every field is optional in the file;
// a zero cap means "no cap".
type Policy struct {
	// File is the config file the policy was loaded from, for messages
	// that send the person there; not a config field.
	File string `json:"-"`
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
	var p Policy
	for _, k := range Knobs {
		k.Set(&p, k.Default)
	}
	return p
}

// ConfigFile is the config file the policy came from (the hook's own
// ConfigPath), or, for a policy made in code, the user's.
func (p Policy) ConfigFile() string {
	if p.File != "" {
		return p.File
	}
	return PolicyPath()
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
	if fields, err := p.readFile(path); err != nil {
		p = DefaultPolicy()
		problems = append(problems, err)
	} else {
		problems = append(problems, fields...)
	}
	problems = append(problems, p.applyEnv(getenv)...)
	problems = append(problems, p.check()...)
	p.File = path
	if path != "" {
		p.PricesFile = filepath.Join(filepath.Dir(path), ownfiles.PricesFileName)
	}
	return p, problems
}

// readFile reads the config file into p: an error for a file that cannot
// be read or is no JSON object (all defaults then), and one problem per
// field that is wrongly typed (its default kept, every other field read)
// or unknown (ignored, with the nearest known key).
func (p *Policy) readFile(path string) ([]error, error) {
	// Anything but a regular file is refused without blocking: the hook
	// reads the config on every tool call, and a FIFO blocks in open(2), a
	// device may never end.
	f, err := ownfiles.OpenRegular(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var pe *fs.PathError
	if errors.Is(err, ownfiles.ErrNotRegular) && errors.As(err, &pe) {
		return nil, fmt.Errorf("config %s is %v, using the defaults", path, pe.Err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("reading config %s: %w", path, err)
	}
	if TooDeep(data) >= 0 {
		return nil, fmt.Errorf("config %s nests deeper than %d levels, using the defaults", path, MaxNesting)
	}
	std, err := hujson.Standardize(data)
	if err != nil {
		return nil, fmt.Errorf("config %s does not parse, using the defaults: %w", path, err)
	}
	if len(strings.TrimSpace(string(std))) == 0 {
		return nil, nil
	}
	fields, err := topLevelFields(std)
	if err != nil {
		return nil, fmt.Errorf("config %s is not valid, using the defaults: %w", path, err)
	}
	// Standardize keeps every byte's place (comments become spaces), so an
	// offset in std is one in the file.
	line := func(off int64) int { return 1 + bytes.Count(data[:min(off, int64(len(data)))], []byte("\n")) }
	var problems []error
	for _, f := range fields {
		if f.key == "prices" {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(f.raw, &m); err != nil {
				problems = append(problems, fmt.Errorf("config %s line %d: prices is not an object of models, ignored", path, line(f.off)))
				continue
			}
			p.Prices = m
			continue
		}
		k, ok := KnobByKey(f.key)
		if !ok {
			problems = append(problems, &UnknownFieldError{Path: path, Line: line(f.off), Key: f.key, Nearest: nearestKey(f.key)})
			continue
		}
		if err := k.decode(p, f.raw); err != nil {
			problems = append(problems, fmt.Errorf("config %s line %d: %s is %s, not %s; using its default %s (hint: %s)",
				path, line(f.off), f.key, bytes.TrimSpace(f.raw), k.kindName(), k.Format(k.Default), k.Rule()))
		}
	}
	return problems, nil
}

// UnknownFieldError is a config key runaway does not know (a warning: the
// file's other fields apply).
type UnknownFieldError struct {
	Path    string
	Line    int
	Key     string
	Nearest string // "" when no known key is near
}

func (e *UnknownFieldError) Error() string {
	msg := fmt.Sprintf("config %s line %d: unknown field %q ignored", e.Path, e.Line, e.Key)
	if e.Nearest != "" {
		msg += fmt.Sprintf("; did you mean %q?", e.Nearest)
	}
	return msg
}

// configField is one top-level field of the config, with the offset of
// its key.
type configField struct {
	key string
	raw json.RawMessage
	off int64
}

// topLevelFields lists the fields of a JSON object in file order.
func topLevelFields(std []byte) ([]configField, error) {
	dec := json.NewDecoder(bytes.NewReader(std))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("it is not a JSON object")
	}
	var out []configField
	for dec.More() {
		off := dec.InputOffset()
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, configField{key: key, raw: raw, off: off + int64(bytes.IndexByte(std[off:], '"'))})
	}
	return out, nil
}

// nearestKey is the known key closest to key in edits, when near enough to
// be a slip (or one is the other's start, as daily_cap is daily_cap_usd's).
func nearestKey(key string) string {
	best, bestD := "", 1<<30
	for _, k := range append(knobKeys(), "prices") {
		d := editDistance(key, k)
		if strings.HasPrefix(k, key) || strings.HasPrefix(key, k) {
			d = min(d, 2)
		}
		if d < bestD {
			best, bestD = k, d
		}
	}
	if bestD > max(2, len(key)/4) {
		return ""
	}
	return best
}

func knobKeys() []string {
	keys := make([]string, len(Knobs))
	for i, k := range Knobs {
		keys[i] = k.Key
	}
	return keys
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// EnvName is the environment variable that overrides one field.
func EnvName(field string) string { return EnvPrefix + strings.ToUpper(field) }

// applyEnv sets each knob (and prices) given in the environment; a value
// its knob does not take is left out, and said.
func (p *Policy) applyEnv(getenv func(string) string) []error {
	var problems []error
	for _, k := range Knobs {
		s := getenv(k.Env())
		if s == "" {
			continue
		}
		v, err := k.Parse(s)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s=%q ignored: %w", k.Env(), s, err))
			continue
		}
		k.Set(p, v)
	}
	if s := getenv(EnvName("prices")); s != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			problems = append(problems, fmt.Errorf("%s=%q ignored: %w", EnvName("prices"), s, err))
		} else {
			p.Prices = m
		}
	}
	return problems
}

// check puts values that make no sense back to their defaults.
func (p *Policy) check() []error {
	var problems []error
	for _, k := range Knobs {
		if v := k.Get(p); k.Check(v) != nil {
			problems = append(problems, fmt.Errorf("%s %s is out of bounds (%s); using %s", k.Key, k.Format(v), k.Rule(), k.Format(k.Default)))
			k.Set(p, k.Default)
		}
	}
	return problems
}
