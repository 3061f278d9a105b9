package main

import (
	"testing"

	"github.com/runaway-guard/runaway/agent"
	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard/tamper"
	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/transcripts"
)

// TestEveryLayerKnowsEveryAgent: an agent in agent.All has an entry in each
// layer's registry (or says there why it has none), and no registry holds
// an agent agent.All does not know.
func TestEveryLayerKnowsEveryAgent(t *testing.T) {
	known := map[agent.ID]bool{}
	for _, f := range agent.All {
		known[f.ID] = true
		id := f.ID
		_, format := transcripts.FormatOf(id)
		if why, none := transcripts.NoTranscript(id); format == none {
			t.Errorf("%s: transcripts should have its Format or say in NoTranscript why not (has a format: %v, says %q)", id, format, why)
		}
		_, settings := configs.SettingsFor(id)
		if why, none := configs.NoSettings(id); settings == none {
			t.Errorf("%s: configs should have its Settings or say in NoSettings why not (has settings: %v, says %q)", id, settings, why)
		}
		if why, none := tamper.NoRules(id); tamper.Guards(id) == none {
			t.Errorf("%s: the tamper wire should have its row (guard/tamper/%s.go, in tamper.agents) or say in noRules why not (has a row: %v, says %q)", id, id, tamper.Guards(id), why)
		}
		if _, ok := installer.HarnessByID(id); !ok {
			t.Errorf("%s: missing from installer.Harnesses", id)
		}
	}
	for _, f := range transcripts.Formats {
		if !known[f.Agent] {
			t.Errorf("transcripts has a format for %s, which agent.All does not list", f.Agent)
		}
	}
	for _, h := range installer.Harnesses {
		if !known[h.ID] {
			t.Errorf("installer lists %s, which agent.All does not", h.ID)
		}
	}
}
