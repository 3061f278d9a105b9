package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/runaway-guard/runaway/configs"
	"github.com/runaway-guard/runaway/guard"
	"github.com/runaway-guard/runaway/installer"
	"github.com/runaway-guard/runaway/ownfiles"
	"github.com/runaway-guard/runaway/pricing"
)

func init() { register(newPricesCmd) }

func newPricesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prices",
		Short: "List the prices runaway uses, with each row's source and date",
		Long: `prices lists the price table runaway uses: per model the USD per million
tokens (input, output, cache read, cache write), where the figures come from
and the day they were checked, and the rates that hold for other dates.

The table is built in. 'runaway prices update' imports a newer catalogue
into runaway's config folder; the config's "prices" field overrides
single models over both. runaway never fetches prices by itself.`,
		Example: `  runaway prices
  runaway prices | grep gpt-6`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return listPrices(cmd.OutOrStdout())
		},
	}
	cmd.AddCommand(newPricesUpdateCmd())
	return cmd
}

func listPrices(w io.Writer) error {
	policy, _ := configs.LoadPolicy(configs.PolicyPath(), os.Getenv)
	t, im, err := guard.TableInUse(policy)
	if err != nil {
		fmt.Fprintf(w, "runaway: %v\n", err)
	}
	if im != nil {
		fmt.Fprintf(w, "the built-in table with %d models from %s, fetched %s (%s)\n",
			len(im.Models), im.Source, im.Fetched, ownfiles.Tilde(policy.PricesFile))
	} else {
		fmt.Fprintf(w, "the built-in table (newest check %s)\n", newestCheck(t))
	}
	if len(policy.Prices) > 0 {
		fmt.Fprintf(w, "with the config's \"prices\" for %d model(s)\n", len(policy.Prices))
	}
	today := pricing.Day(time.Time{})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nmodel\tinput\toutput\tcache read\tcache write\tchecked\tsource")
	models := t.Models()
	sort.SliceStable(models, func(i, j int) bool { return models[i].ID < models[j].ID })
	for _, p := range models {
		now := p.At(today)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.ID, usd(now.Input), usd(now.Output), usd(now.CacheRead),
			usd(now.CacheWrite), dash(p.Checked), p.Source)
		for _, d := range p.Dated {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\t%s\n", periodText(d.Period), usd(d.Input), usd(d.Output),
				usd(d.CacheRead), usd(d.CacheWrite), d.Source)
		}
		if len(p.Dated) > 0 {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\t%s\n", periodText(p.Period), usd(p.Input), usd(p.Output),
				usd(p.CacheRead), usd(p.CacheWrite), "(the row's own rates)")
		}
	}
	return tw.Flush()
}

func newestCheck(t *pricing.Table) string {
	newest := ""
	for _, p := range t.Models() {
		newest = max(newest, p.Checked)
	}
	return newest
}

func periodText(p pricing.Period) string {
	switch {
	case p.From == "" && p.Until == "":
		return "always"
	case p.From == "":
		return "until " + p.Until
	case p.Until == "":
		return "from " + p.From
	}
	return p.From + " to " + p.Until
}

func usd(v float64) string {
	if v == 0 {
		return "-"
	}
	return "$" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", v), "0"), ".")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type pricesUpdateOptions struct {
	from    string
	dryRun  bool
	timeout time.Duration
}

func newPricesUpdateCmd() *cobra.Command {
	o := pricesUpdateOptions{from: pricing.LiteLLMURL, timeout: time.Minute}
	cmd := &cobra.Command{
		Use:   "update",
		Short: "Import a current price catalogue (LiteLLM's) into runaway's config folder",
		Long: `update fetches LiteLLM's model_prices_and_context_window.json (or the file
or URL --from names), checks it (a catalogue of known models, no negative or
absurd rate), shows what changes against the table in use, and writes it
into runaway's config folder, where the hook reads it. A model the built-in
table knows keeps its dated rates and the rules the catalogue has no field
for. A catalogue that fails a check is refused with the reason, and the
table in use stays.

Only this command fetches: the hook never does. Run it in your own
terminal: an agent cannot change the prices its cap is counted in.`,
		Example: `  runaway prices update
  runaway prices update --dry-run
  runaway prices update --from ./model_prices_and_context_window.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runPricesUpdate(cmd.Context(), cmd.OutOrStdout(), o)
		},
	}
	cmd.Flags().StringVar(&o.from, "from", o.from, "the catalogue's URL or file")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "show what would change, write nothing")
	return cmd
}

// maxCatalogue bounds the download (LiteLLM's file is about 1.6 MB).
const maxCatalogue = 64 << 20

func runPricesUpdate(ctx context.Context, w io.Writer, o pricesUpdateOptions) error {
	if err := onlyThePerson("prices update"); err != nil {
		return err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	hints := []string{"runaway prices update --from <a copy of model_prices_and_context_window.json>"}
	data, err := fetchCatalogue(ctx, o.from, o.timeout)
	if err != nil {
		return failf(hints, "cannot fetch the price catalogue from %s: %v; the prices in use stay", o.from, err)
	}
	day := pricing.Day(time.Time{})
	im, err := pricing.ImportLiteLLM(data, o.from, day)
	if err != nil {
		return failf(hints, "the catalogue from %s is refused: %v; the prices in use stay", o.from, err)
	}
	policy, _ := configs.LoadPolicy(configs.PolicyPath(), os.Getenv)
	old, _, _ := guard.TableInUse(configs.Policy{PricesFile: policy.PricesFile})
	next := pricing.Default().WithImported(im)
	changes := pricing.Diff(old, next, day)
	if len(changes) == 0 {
		fmt.Fprintf(w, "no price changes (%d models from %s)\n", len(im.Models), o.from)
	} else {
		fmt.Fprintf(w, "%d change(s), USD per million tokens:\n", len(changes))
		for _, c := range changes {
			fmt.Fprintf(w, "  %s: %s\n", c.Model, c.What)
		}
	}
	if o.dryRun {
		fmt.Fprintln(w, "dry run: nothing written")
		return nil
	}
	out, err := json.MarshalIndent(im, "", " ")
	if err != nil {
		return err
	}
	out = append(out, '\n')
	path := policy.PricesFile
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return failf(nil, "cannot make %s: %v", filepath.Dir(path), err)
	}
	if err := ownfiles.WriteFile(path, out, 0o600, ownfiles.Durable); err != nil {
		return failf(nil, "cannot write %s: %v; the prices in use stay", path, err)
	}
	recordTripwire(w)
	fmt.Fprintf(w, "wrote %s: %d models from %s, fetched %s\n", ownfiles.Tilde(path), len(im.Models), o.from, day)
	return nil
}

// fetchCatalogue reads the catalogue at from: an http(s) URL or a file.
func fetchCatalogue(ctx context.Context, from string, timeout time.Duration) ([]byte, error) {
	if !strings.HasPrefix(from, "http://") && !strings.HasPrefix(from, "https://") {
		f, err := os.Open(from)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readBounded(f)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, from, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "runaway/"+buildInfo().version)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	return readBounded(resp.Body)
}

func readBounded(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxCatalogue+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCatalogue {
		return nil, fmt.Errorf("larger than %d MB", maxCatalogue>>20)
	}
	return data, nil
}

// pricesStale is how old the table in use may get before doctor says so:
// prices change monthly (new models, introductory rates that end).
const pricesStale = 31 * 24 * time.Hour

// pricesChecks are doctor's lines about prices: the table in use older
// than a month, sessions priced with an estimate (a model not in it).
func pricesChecks(now time.Time) []installer.Check {
	policy, _ := configs.LoadPolicy(configs.PolicyPath(), os.Getenv)
	t, im, err := guard.TableInUse(policy)
	var out []installer.Check
	if err != nil {
		out = append(out, installer.Check{Status: installer.StatusWarn, Check: "prices", Detail: fmt.Sprintf("%v", err)})
	}
	what, day := "the built-in table", newestCheck(t)
	if im != nil {
		what, day = "the prices imported from "+im.Source, im.Fetched
	}
	if checked, perr := time.Parse(time.DateOnly, day); perr == nil && now.Sub(checked) > pricesStale {
		out = append(out, installer.Check{Status: installer.StatusWarn, Check: "prices",
			Detail: fmt.Sprintf("%s is from %s, more than a month old: new models are priced as estimates and changed rates are missed; run: runaway prices update", what, day)})
	} else {
		out = append(out, installer.Check{Status: installer.StatusOK, Check: "prices", Detail: fmt.Sprintf("%s, checked %s", what, day)})
	}
	store := &guard.Store{Dir: ownfiles.OwnDirs().State}
	sessions, _ := store.Sessions()
	var estimated []string
	for _, s := range sessions {
		if s.Spend.Estimated && now.Sub(s.Updated) < pricesStale {
			estimated = append(estimated, fmt.Sprintf("%s %s (%s)", s.Harness, s.SessionID, strings.Join(s.Spend.Models, ", ")))
		}
	}
	if len(estimated) > 0 {
		if len(estimated) > 3 {
			estimated = append(estimated[:3], fmt.Sprintf("and %d more", len(estimated)-3))
		}
		out = append(out, installer.Check{Status: installer.StatusWarn, Check: "prices-estimated",
			Detail: fmt.Sprintf("sessions priced with an estimate (a model runaway has no price for, priced like its family's newest): %s; run: runaway prices update, or give the model its price in the config's \"prices\"", strings.Join(estimated, "; "))})
	}
	return out
}
