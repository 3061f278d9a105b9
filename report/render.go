package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/runaway-guard/runaway/agent"
)

// Style is how a report is printed for a person.
type Style struct {
	// Color: ANSI colours (a terminal without NO_COLOR).
	Color bool
	// Chart: spend per period as bars stacked by agent (time views).
	Chart bool
	// Width is the terminal's width in columns (0: 100).
	Width int
}

// agentStyle is each agent's bar: a 256-colour index, and the fill used
// without colour so the bars still tell the agents apart.
var agentStyle = map[Agent]struct {
	color int
	fill  string
}{
	Claude: {173, "█"}, Codex: {36, "▓"}, Gemini: {33, "▒"}, OpenCode: {245, "░"}, Copilot: {99, "▚"},
}

func name(a Agent) string {
	if f, ok := agent.Lookup(a); ok {
		return f.Name
	}
	return string(a)
}

// WriteText prints the report as a table (and chart) for a person.
func (r *Report) WriteText(w io.Writer, s Style) error {
	if s.Width <= 0 {
		s.Width = 100
	}
	bold := func(t string) string {
		if s.Color {
			return "\x1b[1m" + t + "\x1b[0m"
		}
		return t
	}
	if len(r.Rows) == 0 {
		fmt.Fprintln(w, "no spend found"+r.rangeText())
		r.writeNotes(w)
		return nil
	}
	if s.Chart && isTimeView(r.View) {
		r.writeChart(w, s)
		fmt.Fprintln(w)
	}
	t := table{head: r.columns(), numeric: r.leading()}
	for _, row := range r.Rows {
		t.rows = append(t.rows, r.cells(row))
		for _, m := range row.ByModel {
			t.rows = append(t.rows, r.modelCells(m))
		}
	}
	cells := r.cells(Row{Key: "Total", Totals: r.Totals})
	for i := 1; i < r.leading(); i++ {
		cells[i] = ""
	}
	if isTimeView(r.View) {
		cells[len(cells)-1] = r.decisionTotals()
	}
	t.foot = cells
	t.write(w, bold)
	if r.Totals.EstimatedUSD > 0 {
		fmt.Fprintf(w, "~ includes %s at estimated prices (see runaway report --help)\n", dollars(r.Totals.EstimatedUSD))
	}
	if r.Totals.PremiumRequests > 0 {
		fmt.Fprintf(w, "GitHub Copilot's plan billed %s premium requests besides: its own units, not dollars, so not in the cost above\n", strconv.FormatFloat(r.Totals.PremiumRequests, 'f', -1, 64))
	}
	if r.Duplicates > 0 {
		fmt.Fprintf(w, "%d responses repeated in a copied session were counted once\n", r.Duplicates)
	}
	r.writeNotes(w)
	return nil
}

func (r *Report) rangeText() string {
	switch {
	case r.Since != "" && r.Until != "":
		return fmt.Sprintf(" from %s to %s", r.Since, r.Until)
	case r.Since != "":
		return " since " + r.Since
	case r.Until != "":
		return " until " + r.Until
	}
	return ""
}

func (r *Report) writeNotes(w io.Writer) {
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note: "+n)
	}
}

func (r *Report) columns() []string {
	var first []string
	switch r.View {
	case BySess:
		first = []string{"Session", "Agent", "Project", "Last activity", "Models"}
	case ByProj:
		first = []string{"Project", "Agents", "Models"}
	case ByAgent:
		first = []string{"Agent", "Models"}
	default:
		label := map[string]string{Daily: "Date", Weekly: "Week of", Monthly: "Month"}[r.View]
		first = []string{label, "Agents", "Models"}
	}
	cols := append(first, "Input", "Output", "Cache write", "Cache read", "Total tokens", "Cost")
	if isTimeView(r.View) {
		cols = append(cols, "runaway")
	}
	return cols
}

func (r *Report) cells(row Row) []string {
	var first []string
	models := strings.Join(row.Models, ", ")
	switch r.View {
	case BySess:
		last := ""
		if !row.Last.IsZero() {
			last = row.Last.Format("2006-01-02 15:04")
		}
		first = []string{row.Key, name(row.Agent), row.Project, last, models}
	case ByProj:
		first = []string{row.Key, agentList(row.Agents), models}
	case ByAgent:
		first = []string{name(Agent(row.Key)), models}
	default:
		first = []string{row.Key, agentList(row.Agents), models}
	}
	c := append(first, tokens(row.Input), tokens(row.Output), tokens(row.CacheWrite), tokens(row.CacheRead), tokens(row.Tokens), cost(row.Totals))
	if isTimeView(r.View) {
		c = append(c, decisionText(row.Decisions))
	}
	return c
}

// leading is how many columns come before the numbers.
func (r *Report) leading() int {
	n := len(r.columns()) - 6
	if isTimeView(r.View) {
		n--
	}
	return n
}

func (r *Report) modelCells(m ModelRow) []string {
	n := r.leading()
	c := make([]string, n)
	c[n-1] = "└ " + m.Model
	c = append(c, tokens(m.Input), tokens(m.Output), tokens(m.CacheWrite), tokens(m.CacheRead), tokens(m.Tokens), cost(m.Totals))
	if isTimeView(r.View) {
		c = append(c, "")
	}
	return c
}

func agentList(as []Agent) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = name(a)
	}
	return strings.Join(names, ", ")
}

// decisionOrder is how a row lists runaway's decisions: the strongest first.
var decisionOrder = []string{"stop", "deny", "ask", "warn"}

func decisionText(d map[string]int) string {
	var parts []string
	for _, k := range decisionOrder {
		if d[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", d[k], k))
		}
	}
	var rest []string
	for k, n := range d {
		if n > 0 && !contains(decisionOrder, k) {
			rest = append(rest, fmt.Sprintf("%d %s", n, k))
		}
	}
	sort.Strings(rest)
	return strings.Join(append(parts, rest...), ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *Report) decisionTotals() string {
	sum := map[string]int{}
	for _, row := range r.Rows {
		for k, n := range row.Decisions {
			sum[k] += n
		}
	}
	return decisionText(sum)
}

// tokens prints a count with thousands separators.
func tokens(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func dollars(usd float64) string { return fmt.Sprintf("$%.2f", math.Round(usd*100)/100) }

// cost is a row's dollars, marked ~ when part of it is an estimate.
func cost(t Totals) string {
	if t.EstimatedUSD > 0 {
		return "~" + dollars(t.USD)
	}
	return dollars(t.USD)
}

// writeChart draws one bar per period, as long as its spend against the
// largest, made of each agent's part in its colour (or fill).
func (r *Report) writeChart(w io.Writer, s Style) {
	var top float64
	for _, row := range r.Rows {
		top = max(top, row.USD)
	}
	var present []Agent
	seen := map[Agent]bool{}
	for _, row := range r.Rows {
		for a := range row.PerAgent {
			if !seen[a] {
				seen[a] = true
				present = append(present, a)
			}
		}
	}
	sort.Slice(present, func(i, j int) bool { return agentOrder(present[i]) < agentOrder(present[j]) })
	paint := func(a Agent, n int) string {
		st := agentStyle[a]
		if st.fill == "" {
			st.fill = "#"
		}
		if s.Color {
			return fmt.Sprintf("\x1b[38;5;%dm%s\x1b[0m", st.color, strings.Repeat("█", n))
		}
		return strings.Repeat(st.fill, n)
	}
	label := map[string]string{Daily: "day", Weekly: "week", Monthly: "month"}[r.View]
	var legend []string
	for _, a := range present {
		legend = append(legend, paint(a, 2)+" "+name(a))
	}
	fmt.Fprintf(w, "Spend per %s, by agent   %s\n", label, strings.Join(legend, "  "))
	keyWidth := len(r.Rows[0].Key)
	width := max(s.Width-keyWidth-14, 10)
	for _, row := range r.Rows {
		var bar strings.Builder
		cells := 0
		if top > 0 {
			// Each agent's part rounds so the bar's length is the row's.
			want := int(math.Round(row.USD / top * float64(width)))
			acc := 0.0
			for _, a := range present {
				acc += row.PerAgent[a]
				end := int(math.Round(acc / top * float64(width)))
				end = min(end, want)
				if n := end - cells; n > 0 {
					bar.WriteString(paint(a, n))
					cells = end
				}
			}
		}
		fmt.Fprintf(w, "%s  %s%s  %s\n", row.Key, bar.String(), strings.Repeat(" ", max(width-cells, 0)), cost(row.Totals))
	}
}

// WriteJSON prints the report as one JSON object.
// Dollars are rounded to the millionth, as replay's are.
func (r *Report) WriteJSON(w io.Writer) error {
	out := *r
	out.Rows = make([]Row, len(r.Rows))
	for i, row := range r.Rows {
		row.Totals = row.Totals.rounded()
		per := make(map[Agent]float64, len(row.PerAgent))
		for a, usd := range row.PerAgent {
			per[a] = micro(usd)
		}
		if len(per) > 0 {
			row.PerAgent = per
		}
		models := make([]ModelRow, len(row.ByModel))
		for j, m := range row.ByModel {
			m.Totals = m.Totals.rounded()
			models[j] = m
		}
		if len(models) > 0 {
			row.ByModel = models
		}
		out.Rows[i] = row
	}
	out.Totals = r.Totals.rounded()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteCSV prints the report as CSV: a header, one record per row (and per
// model under it with --breakdown), then the total.
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{r.keyColumn()}
	if r.View == BySess {
		head = append(head, "agent", "project", "last")
	}
	head = append(head, "agents", "model", "input_tokens", "output_tokens", "cache_creation_tokens", "cache_read_tokens", "total_tokens", "responses", "cost_usd", "estimated_usd")
	if isTimeView(r.View) {
		head = append(head, "stops", "denies", "asks", "warnings")
	}
	cw.Write(head)
	rec := func(row Row, model string, t Totals) []string {
		c := []string{row.Key}
		if r.View == BySess {
			last := ""
			if !row.Last.IsZero() {
				last = row.Last.Format("2006-01-02T15:04:05Z07:00")
			}
			c = append(c, string(row.Agent), row.Project, last)
		}
		agents := make([]string, len(row.Agents))
		for i, a := range row.Agents {
			agents[i] = string(a)
		}
		c = append(c, strings.Join(agents, ";"), model, itoa(t.Input), itoa(t.Output), itoa(t.CacheWrite), itoa(t.CacheRead), itoa(t.Tokens),
			strconv.Itoa(t.Responses), money(t.USD), money(t.EstimatedUSD))
		if isTimeView(r.View) {
			c = append(c, strconv.Itoa(row.Decisions["stop"]), strconv.Itoa(row.Decisions["deny"]), strconv.Itoa(row.Decisions["ask"]), strconv.Itoa(row.Decisions["warn"]))
		}
		return c
	}
	for _, row := range r.Rows {
		cw.Write(rec(row, strings.Join(row.Models, ";"), row.Totals))
		for _, m := range row.ByModel {
			cw.Write(rec(row, m.Model, m.Totals))
		}
	}
	cw.Flush()
	return cw.Error()
}

func (r *Report) keyColumn() string {
	switch r.View {
	case Weekly:
		return "week"
	case Monthly:
		return "month"
	case BySess:
		return "session"
	case ByProj:
		return "project"
	case ByAgent:
		return "agent"
	}
	return "date"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// money prints dollars to the millionth, as replay's JSON does.
func money(usd float64) string { return strconv.FormatFloat(micro(usd), 'f', -1, 64) }

func micro(usd float64) float64 { return math.Round(usd*1e6) / 1e6 }

func (t Totals) rounded() Totals {
	t.USD, t.EstimatedUSD = micro(t.USD), micro(t.EstimatedUSD)
	return t
}

// table prints columns padded to their widest cell: text to the left, the
// numbers (from column numeric on) to the right, the last column (runaway's
// decisions) to the left again.
type table struct {
	head, foot []string
	rows       [][]string
	numeric    int
}

func (t table) write(w io.Writer, bold func(string) string) {
	width := make([]int, len(t.head))
	for _, row := range append(append([][]string{t.head}, t.rows...), t.foot) {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	line := func(row []string) string {
		var b strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i >= t.numeric && i < t.numeric+6 {
				b.WriteString(pad + c)
			} else if i < len(row)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		return strings.TrimRight(b.String(), " ")
	}
	fmt.Fprintln(w, bold(line(t.head)))
	for _, row := range t.rows {
		fmt.Fprintln(w, line(row))
	}
	fmt.Fprintln(w, bold(line(t.foot)))
}
