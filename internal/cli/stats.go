package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/stats"
	"github.com/vigil-dev/vigil/internal/tui"
	"github.com/vigil-dev/vigil/llm"
)

// topSessions is how many sessions `vigil stats` lists without --all.
const topSessions = 10

type statsCmd struct {
	JSON       bool   `help:"Print one JSON document (see docs/stats.md) instead of tables."`
	Since      string `help:"Count only what was recorded since DATE: 2026-11-05 (local midnight), an RFC 3339 time, or a time ago such as 7d or 12h." placeholder:"DATE"`
	Project    string `help:"Only the projects whose folder contains SUBSTR." placeholder:"SUBSTR"`
	All        bool   `help:"List every session, not only the costliest ten."`
	ModelsFile string `name:"models-file" help:"models.yml to price with instead of the agent folder's." type:"path" placeholder:"PATH"`
	// With --fleet, the usage of a fleet's reviews (docs/fleet.md).
	Fleet  string `placeholder:"URL" help:"Read the usage of a fleet's reviews from NATS JetStream at URL (the tenant's usage stream, docs/fleet.md) instead of local sessions."`
	Tenant string `default:"default" help:"With --fleet: the tenant whose usage to read."`
	natsFlags
}

func (c *statsCmd) Run(e *env) error {
	since, err := parseSince(c.Since, time.Now())
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	if c.Fleet != "" {
		return c.runFleet(e, since)
	}
	root, err := e.sessionsDir()
	if err != nil {
		return err
	}
	r, err := stats.Scan(root, stats.Options{Price: e.pricer(c.ModelsFile), Since: since, Project: c.Project})
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return writeStats(e.stdout, r, c.All)
}

// sessionsDir is the sessions folder of the agent folder.
func (e *env) sessionsDir() (string, error) {
	dir, err := e.agentDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "sessions"), nil
}

// pricer prices models from the registry. A models.yml that cannot be
// read is reported on stderr and the built-in catalog prices alone: stats
// of past sessions should not need today's file to be valid.
func (e *env) pricer(file string) func(llm.Ref) (llm.Price, bool) {
	reg, err := e.registry(file)
	if err != nil {
		fmt.Fprintf(e.stderr, "vigil: warning: %v; pricing with the built-in catalog only\n", err)
		reg = models.New(models.Options{LookupEnv: e.lookupEnv})
	}
	return registryPricer(reg)
}

// registryPricer prices models from reg.
func registryPricer(reg *models.Registry) func(llm.Ref) (llm.Price, bool) {
	return func(ref llm.Ref) (llm.Price, bool) {
		res, err := reg.Resolve(ref.String())
		if err != nil {
			return llm.Price{}, false
		}
		return res.Info.Price, true
	}
}

// parseSince reads --since: a date (local midnight), an RFC 3339 time, or
// a span before now such as 7d, 36h or 90m. "" is no bound.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, time.Local); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days >= 0 {
			return now.AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: want a date (2026-11-05), an RFC 3339 time, or a time ago such as 7d or 12h", s)
}

// writeStats prints a report as tables.
func writeStats(w io.Writer, r *stats.Report, all bool) error {
	t := r.Totals
	fmt.Fprintf(w, "%s: %s (%s), %s, %s, %s tokens, %s\n",
		r.Root, tui.Plural(t.Sessions, "session"), tui.Plural(t.Files, "file"), tui.Plural(t.Prompts, "prompt"), tui.Plural(t.Turns, "turn"), tokens64(t.Tokens.Total()), cost(t.Usage))
	if t.Sessions > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "\nPROJECT\tSESSIONS\tPROMPTS\t"+usageHead)
		for _, p := range r.Projects {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", p.Cwd, p.Sessions, p.Prompts, usageCells(p.Usage))
		}
		fmt.Fprintln(tw, "\nMODEL\t"+usageHead)
		for _, m := range r.Models {
			name := m.Model
			if name == "" {
				name = "(no model named)"
			}
			fmt.Fprintf(tw, "%s\t%s\n", name, usageCells(m.Usage))
		}
		fmt.Fprintln(tw, "\nROLE\tFILES\t"+usageHead)
		for _, ro := range r.Roles {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", ro.Role, ro.Files, usageCells(ro.Usage))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if err := writeTopSessions(w, r.Sessions, all); err != nil {
			return err
		}
	}
	if hasUnpriced(r) {
		fmt.Fprintln(w, "\n* includes turns of models with no price (counted at $0); give them a cost in models.yml (docs/models.md)")
	}
	writeProblems(w, r.Problems)
	return nil
}

const usageHead = "TURNS\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tCOST"

func usageCells(u stats.Usage) string {
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s", u.Turns, tokens64(u.Tokens.Input), tokens64(u.Tokens.Output),
		tokens64(u.Tokens.CacheRead), tokens64(u.Tokens.CacheWrite), cost(u))
}

func writeTopSessions(w io.Writer, sessions []stats.Session, all bool) error {
	shown := sessions
	if !all && len(shown) > topSessions {
		shown = shown[:topSessions]
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSESSION\tSTARTED\tPROMPTS\tTURNS\tSUBAGENTS\tADVISOR TURNS\tTOKENS\tCOST\tFILE")
	for _, s := range shown {
		adv := "-"
		if len(s.Advisors) > 0 {
			turns := 0
			for _, a := range s.Advisors {
				turns += a.Turns
			}
			adv = strconv.Itoa(turns)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n", s.ID, started(s), s.Prompts, s.Turns, len(s.Subagents), adv,
			tokens64(s.Tokens.Total()), cost(s.Usage), s.File)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(shown) < len(sessions) {
		fmt.Fprintf(w, "(the %d costliest of %d sessions; --all lists every one)\n", len(shown), len(sessions))
	}
	return nil
}

func writeProblems(w io.Writer, problems []stats.Problem) {
	if len(problems) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%d files could not be read whole (torn and bad-line files count up to the damage):\n", len(problems))
	for _, p := range problems {
		fmt.Fprintf(w, "  %s: %s\n", p.Kind, p.Error)
	}
}

func hasUnpriced(r *stats.Report) bool { return r.Totals.Unpriced > 0 }

// cost formats dollars; a sum with unpriced turns is marked with *.
func cost(u stats.Usage) string {
	switch {
	case u.Turns == 0:
		return "-"
	case u.Unpriced == u.Turns:
		return "unpriced"
	case u.Unpriced > 0:
		return fmt.Sprintf("$%.4f*", u.Cost)
	}
	return fmt.Sprintf("$%.4f", u.Cost)
}

// tokens64 formats a token count to three or four significant digits:
// 950, 12.3K, 4.57M.
func tokens64(n int64) string {
	f := float64(n)
	switch {
	case n == 0:
		return "-"
	case n < 10_000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return strconv.FormatFloat(f/1e3, 'f', 1, 64) + "K"
	case n < 1_000_000_000:
		return strconv.FormatFloat(f/1e6, 'f', 2, 64) + "M"
	}
	return strconv.FormatFloat(f/1e9, 'f', 2, 64) + "B"
}

// started formats a session's creation time in local time.
func started(s stats.Session) string { return localTime(s.Started) }

// runFleet is `vigil stats --fleet URL`: the tenant's usage stream read
// and summed by model, as the workers priced it.
func (c *statsCmd) runFleet(e *env, since time.Time) error {
	if c.Project != "" {
		return &exitError{code: exitUsage, err: errors.New("--project does not go with --fleet: a fleet's usage is by tenant")}
	}
	if !fleet.ValidName(c.Tenant) {
		return &exitError{code: exitUsage, err: fmt.Errorf("--tenant %q: want letters, digits, - and _", c.Tenant)}
	}
	nc, err := c.auth().Dial(c.Fleet, "vigil stats ("+c.Tenant+")")
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return fmt.Errorf("stats: jetstream: %w", err)
	}
	ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
	defer cancel()
	records, err := fleet.ReadUsage(ctx, js, c.Tenant, since)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	sum := fleet.SummarizeUsage(records)
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return writeFleetStats(e.stdout, fleet.HideCredentials(nc.ConnectedUrl()), c.Tenant, sum, c.All)
}

// writeFleetStats prints a fleet's usage summary as tables: by model, and
// the costliest sessions (every one with all).
func writeFleetStats(w io.Writer, url, tenant string, s fleet.UsageSummary, all bool) error {
	var unpriced int
	for _, m := range s.Models {
		unpriced += m.Unpriced
	}
	total := fleetUsage(s.Reviews, s.Usage, s.Cost, unpriced)
	fmt.Fprintf(w, "fleet %s, tenant %s: %s, %s, %s tokens, %s\n",
		url, tenant, tui.Plural(int(s.Sessions), "session"), tui.Plural(int(s.Reviews), "review"), tokens64(s.Usage.Total()), cost(total))
	if len(s.Models) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nMODEL\tREVIEWS\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tCOST")
	for _, m := range s.Models {
		u := fleetUsage(m.Reviews, m.Usage, m.Cost, m.Unpriced)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", m.Model, m.Reviews, tokens64(m.Usage.Input), tokens64(m.Usage.Output),
			tokens64(m.Usage.CacheRead), tokens64(m.Usage.CacheWrite), cost(u))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := writeFleetSessions(w, s.BySession, all); err != nil {
		return err
	}
	if unpriced > 0 {
		fmt.Fprintln(w, "\n* includes reviews of models the workers had no price for (counted at $0); give them a cost in the workers' models.yml (docs/models.md)")
	}
	return nil
}

// writeFleetSessions lists a fleet's sessions, the costliest ten unless
// all, as writeTopSessions lists local ones.
func writeFleetSessions(w io.Writer, sessions []fleet.SessionTotal, all bool) error {
	shown := sessions
	if !all && len(shown) > topSessions {
		shown = shown[:topSessions]
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSESSION\tFIRST REVIEW\tLAST REVIEW\tREVIEWS\tNOTES\tTOKENS\tCOST")
	for _, st := range shown {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\n", st.Session, localTime(st.First), localTime(st.Last), st.Reviews, st.Notes,
			tokens64(st.Usage.Total()), cost(fleetUsage(st.Reviews, st.Usage, st.Cost, st.Unpriced)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(shown) < len(sessions) {
		fmt.Fprintf(w, "(the %d costliest of %d sessions; --all lists every one)\n", len(shown), len(sessions))
	}
	return nil
}

// localTime formats a time to the minute in local time, "-" when zero.
func localTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// fleetUsage is a fleet's usage as the local report's, reviews for turns,
// so that cost marks what is unpriced the same way.
func fleetUsage(reviews int, u llm.Usage, dollars float64, unpriced int) stats.Usage {
	return stats.Usage{Turns: reviews, Tokens: stats.Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}, Cost: dollars, Unpriced: unpriced}
}
