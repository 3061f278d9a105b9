package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/pricing"
)

// Claude Code's own price settings (see pricing.ClaudeCodePricing): its
// managed settings' modelPricing, and the model costs its server sent,
// which it keeps in its global config. runaway reads both so that its
// dollars are Claude Code's.

// claudeManagedDir is where Claude Code 2.1.332 reads file-based managed
// settings (managed-settings.json and managed-settings.d/*.json).
func claudeManagedDir() string {
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/ClaudeCode"
	case "windows":
		return `C:\Program Files\ClaudeCode`
	}
	return "/etc/claude-code"
}

// claudeGlobalConfig is Claude Code's .claude.json: in $CLAUDE_CONFIG_DIR
// when set, else in the home folder.
func claudeGlobalConfig(getenv func(string) string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, ".claude.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".claude.json")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".claude.json")
	}
	return ""
}

// maxClaudeFile bounds what is read of Claude Code's files (.claude.json
// holds every project's history and can grow).
const maxClaudeFile = 16 << 20

func readSmall(path string) ([]byte, error) {
	f, err := ownfiles.OpenRegular(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxClaudeFile+1))
	if err == nil && len(data) > maxClaudeFile {
		err = fmt.Errorf("larger than %d MB", maxClaudeFile>>20)
	}
	return data, err
}

// readClaudeCodePricing reads Claude Code's price settings: managed dir
// (managedDir, "" for the system's) and the environment Claude Code runs
// in. Files that are absent change nothing; a file that does not parse is
// an error, and the rest still applies.
func readClaudeCodePricing(managedDir string, getenv func(string) string) (pricing.ClaudeCodePricing, []error) {
	if managedDir == "" {
		managedDir = claudeManagedDir()
	}
	var cp pricing.ClaudeCodePricing
	var problems []error
	// managed-settings.json, then the drop-ins in name order: the last
	// that sets modelPricing wins (it is one value, not merged).
	files := []string{filepath.Join(managedDir, "managed-settings.json")}
	dropIns, _ := filepath.Glob(filepath.Join(managedDir, "managed-settings.d", "*.json"))
	sort.Strings(dropIns)
	files = append(files, dropIns...)
	for _, f := range files {
		data, err := readSmall(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("Claude Code managed settings %s: %v", f, err))
			continue
		}
		if !bytes.Contains(data, []byte(`"modelPricing"`)) {
			continue
		}
		var doc struct {
			ModelPricing json.RawMessage `json:"modelPricing"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			problems = append(problems, fmt.Errorf("Claude Code managed settings %s: %v", f, err))
			continue
		}
		if len(doc.ModelPricing) == 0 || string(doc.ModelPricing) == "null" {
			continue
		}
		mp, errs := pricing.ParseClaudeCodeModelPricing(doc.ModelPricing)
		for _, e := range errs {
			problems = append(problems, fmt.Errorf("Claude Code managed settings %s: %w", f, e))
		}
		cp.Multiplier, cp.Overrides = mp.Multiplier, mp.Overrides
	}
	if g := claudeGlobalConfig(getenv); g != "" {
		data, err := readSmall(g)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			problems = append(problems, fmt.Errorf("Claude Code config %s: %v", g, err))
		case bytes.Contains(data, []byte(`"additionalModelCostsCache"`)):
			var doc struct {
				Costs map[string]pricing.ClaudeCodeCosts `json:"additionalModelCostsCache"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				problems = append(problems, fmt.Errorf("Claude Code config %s: additionalModelCostsCache: %v", g, err))
				break
			}
			for model, c := range doc.Costs {
				if c.Input < 0 || c.Output < 0 || c.CacheRead < 0 || c.CacheWrite < 0 || c.Input+c.Output == 0 {
					continue // no price, or not one: the table's stays
				}
				if cp.ServerCosts == nil {
					cp.ServerCosts = map[string]pricing.ClaudeCodeCosts{}
				}
				cp.ServerCosts[model] = c
			}
		}
	}
	return cp, problems
}
