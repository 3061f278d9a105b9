package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// The views a report groups spend by.
const (
	Daily   = "daily"
	Weekly  = "weekly"
	Monthly = "monthly"
	BySess  = "session"
	ByProj  = "project"
	ByAgent = "agent"
)

// Views lists them, in the order help shows them.
var Views = []string{Daily, Weekly, Monthly, BySess, ByProj, ByAgent}

// Query is what a report shows.
type Query struct {
	View string
	// Since and Until are dates (YYYY-MM-DD) in Loc, both included; ""
	// leaves that end open.
	Since, Until string
	Agents       []Agent
	// Project keeps sessions whose project contains it.
	Project   string
	Loc       *time.Location
	Breakdown bool
}

// Totals are tokens and dollars.
type Totals struct {
	Input      int64   `json:"input_tokens"`
	Output     int64   `json:"output_tokens"`
	CacheWrite int64   `json:"cache_creation_tokens"`
	CacheRead  int64   `json:"cache_read_tokens"`
	Tokens     int64   `json:"total_tokens"`
	Responses  int     `json:"responses"`
	USD        float64 `json:"cost_usd"`
	// EstimatedUSD is the part of USD priced by estimate: a model the
	// price table does not know, priced like its family's newest.
	EstimatedUSD float64 `json:"estimated_usd,omitempty"`
	// PremiumRequests is what GitHub Copilot's own plan billed, in its
	// premium-request units: not dollars, and not in USD.
	PremiumRequests float64 `json:"copilot_premium_requests,omitempty"`
}

func (t *Totals) addBucket(b bucket) {
	t.Input += b.Usage.Input
	t.Output += b.Usage.Output
	t.CacheWrite += b.Usage.CacheWrite()
	t.CacheRead += b.Usage.CacheRead
	t.Tokens += b.Usage.Total()
	t.Responses += b.Responses
	t.USD += b.USD
	t.EstimatedUSD += b.EstimatedUSD
	t.PremiumRequests += b.Premium
}

func (t *Totals) add(o Totals) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheWrite += o.CacheWrite
	t.CacheRead += o.CacheRead
	t.Tokens += o.Tokens
	t.Responses += o.Responses
	t.USD += o.USD
	t.EstimatedUSD += o.EstimatedUSD
	t.PremiumRequests += o.PremiumRequests
}

// ModelRow is one model's part of a row.
type ModelRow struct {
	Model string `json:"model"`
	Totals
}

// Row is one line of a report: a period, a session, a project or an agent.
type Row struct {
	Key    string   `json:"key"`
	Agents []Agent  `json:"agents"`
	Models []string `json:"models"`
	// Session view: the session's agent and project, and its last response.
	Agent   Agent     `json:"agent,omitempty"`
	Project string    `json:"project,omitempty"`
	Last    time.Time `json:"last,omitzero"`
	Totals
	// PerAgent is the row's dollars by agent (the chart stacks them).
	PerAgent map[Agent]float64 `json:"cost_by_agent_usd,omitempty"`
	ByModel  []ModelRow        `json:"breakdown,omitempty"`
	// Decisions counts what runaway decided in the period, by decision.
	Decisions map[string]int `json:"runaway_decisions,omitempty"`
}

// Report is a made report.
type Report struct {
	View     string `json:"view"`
	Timezone string `json:"timezone"`
	Since    string `json:"since,omitempty"`
	Until    string `json:"until,omitempty"`
	Rows     []Row  `json:"rows"`
	Totals   Totals `json:"totals"`
	// Duplicates counts responses left out because another session had
	// already counted them (a transcript copied to resume it elsewhere).
	Duplicates int      `json:"duplicates,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// periodKey is the row a moment falls in, for the time views.
func periodKey(view string, t time.Time) string {
	switch view {
	case Weekly:
		// Weeks start on Monday (ISO 8601).
		d := (int(t.Weekday()) + 6) % 7
		return t.AddDate(0, 0, -d).Format(time.DateOnly)
	case Monthly:
		return t.Format("2006-01")
	}
	return t.Format(time.DateOnly)
}

// Make groups the history as q says. decisions are runaway's own
// decisions, for the time views.
func Make(h *History, q Query, decisions []DecisionEntry) (*Report, error) {
	if !slices.Contains(Views, q.View) {
		return nil, fmt.Errorf("unknown view %q (one of %s)", q.View, strings.Join(Views, ", "))
	}
	if q.Loc == nil {
		q.Loc = time.Local
	}
	rep := &Report{View: q.View, Timezone: q.Loc.String(), Since: q.Since, Until: q.Until, Notes: h.Notes}
	rows := map[string]*Row{}
	models := map[string]map[string]*ModelRow{}
	keep := func(a Agent) bool { return len(q.Agents) == 0 || slices.Contains(q.Agents, a) }
	inRange := func(day string) bool {
		return (q.Since == "" || day >= q.Since) && (q.Until == "" || day <= q.Until)
	}
	for _, s := range h.Sessions {
		if !keep(s.Agent) || (q.Project != "" && !strings.Contains(s.Project, q.Project)) {
			continue
		}
		rep.Duplicates += s.Dups
		for _, b := range s.Buckets {
			t := time.Unix(b.Slot*slotSeconds, 0).In(q.Loc)
			if !inRange(t.Format(time.DateOnly)) {
				continue
			}
			var key string
			switch q.View {
			case BySess:
				key = string(s.Agent) + "\x00" + s.ID
			case ByProj:
				key = s.Project
			case ByAgent:
				key = string(s.Agent)
			default:
				key = periodKey(q.View, t)
			}
			r := rows[key]
			if r == nil {
				r = &Row{Key: key, PerAgent: map[Agent]float64{}}
				if q.View == BySess {
					r.Key, r.Agent, r.Project = s.ID, s.Agent, s.Project
				}
				rows[key] = r
				models[key] = map[string]*ModelRow{}
			}
			r.addBucket(b)
			r.PerAgent[s.Agent] += b.USD
			if !slices.Contains(r.Agents, s.Agent) {
				r.Agents = append(r.Agents, s.Agent)
			}
			m := models[key][b.Model]
			if m == nil {
				m = &ModelRow{Model: b.Model}
				models[key][b.Model] = m
			}
			m.addBucket(b)
			if q.View == BySess {
				if last := time.Unix(s.Last, 0).In(q.Loc); last.After(r.Last) {
					r.Last = last
				}
			}
		}
	}
	if isTimeView(q.View) {
		for _, d := range decisions {
			t := d.Time.In(q.Loc)
			if !inRange(t.Format(time.DateOnly)) || !keep(d.Agent) {
				continue
			}
			key := periodKey(q.View, t)
			r := rows[key]
			if r == nil {
				r = &Row{Key: key, PerAgent: map[Agent]float64{}}
				rows[key] = r
				models[key] = map[string]*ModelRow{}
			}
			if r.Decisions == nil {
				r.Decisions = map[string]int{}
			}
			r.Decisions[d.Decision]++
		}
	}
	for key, r := range rows {
		for _, m := range models[key] {
			r.Models = append(r.Models, m.Model)
			if q.Breakdown {
				r.ByModel = append(r.ByModel, *m)
			}
		}
		sort.Strings(r.Models)
		sort.Slice(r.ByModel, func(i, j int) bool { return r.ByModel[i].USD > r.ByModel[j].USD })
		sort.Slice(r.Agents, func(i, j int) bool { return agentOrder(r.Agents[i]) < agentOrder(r.Agents[j]) })
		if len(r.PerAgent) == 0 {
			r.PerAgent = nil
		}
		rep.Rows = append(rep.Rows, *r)
		rep.Totals.add(r.Totals)
	}
	sort.Slice(rep.Rows, func(i, j int) bool {
		a, b := rep.Rows[i], rep.Rows[j]
		switch q.View {
		case BySess:
			if !a.Last.Equal(b.Last) {
				return a.Last.Before(b.Last)
			}
		case ByProj, ByAgent:
			if a.USD != b.USD {
				return a.USD > b.USD
			}
		}
		return a.Key < b.Key
	})
	return rep, nil
}

func isTimeView(v string) bool { return v == Daily || v == Weekly || v == Monthly }

func agentOrder(a Agent) int {
	for i, s := range sources {
		if s.agent() == a {
			return i
		}
	}
	return len(sources)
}
