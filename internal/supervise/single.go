package supervise

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/models"
)

// single is the one continuous advisor runtime: on a model, or the
// detectors alone.
type single struct {
	c   *Config
	rt  *advisor.Runtime
	rec *advisorhost.Transcript // nil without a model: nothing to record

	mu  sync.Mutex
	res *models.Resolved // its model; nil for the detectors alone
}

// newSingle makes the single continuous advisor on res; nil when there
// is nothing to review with.
func newSingle(c *Config, h Host, res *models.Resolved) (*single, error) {
	if c.RulesOnly() {
		res = nil
	}
	rt, rec, err := newRuntime(c, h, res, nil)
	if rt == nil || err != nil {
		return nil, err
	}
	return &single{c: c, rt: rt, rec: rec, res: res}, nil
}

func (s *single) Start()                  { s.rt.Start(context.Background()) }
func (s *single) Notify(ev advisor.Event) { s.rt.Notify(ev) }
func (s *single) SyncBacklog() int        { return s.c.Settings.Advisor.SyncBacklog.Threshold() }
func (s *single) model() *models.Resolved {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res
}

func (s *single) WaitBacklogBelow(ctx context.Context, n int) error {
	return s.rt.WaitBacklogBelow(ctx, n)
}

func (s *single) Consult(ctx context.Context, question string) (string, error) {
	return s.rt.Consult(ctx, question)
}

func (s *single) Rebind(res *models.Resolved) bool {
	if s.rec == nil {
		return false // the detectors alone: no model to change
	}
	model, err := res.Open()
	if err != nil {
		return false
	}
	s.rt.SetModel(model, res.Ref().String())
	s.mu.Lock()
	s.res = res
	s.mu.Unlock()
	return true
}

func (s *single) Spent() Spent {
	st := s.rt.Status()
	return Spent{Usage: st.Usage, ByModel: st.Models}
}

func (s *single) Stop() Spent {
	s.rt.Stop()
	if s.rec != nil {
		// After the runtime stopped: no advisor turn is still to come.
		s.rec.Close()
	}
	return s.Spent()
}

func (s *single) Dump(raw bool) string {
	t := s.rt.Transcript()
	if raw {
		name := "rules (zero-token detectors)"
		if res := s.model(); res != nil {
			name = res.Ref().String()
		}
		return strings.TrimRight(t.Raw(name), "\n")
	}
	return strings.TrimRight(t.Compact(), "\n")
}

func (s *single) Report(prior Spent) Report {
	st := s.rt.Status()
	res := s.model()
	if res == nil {
		return Report{
			Text: fmt.Sprintf("Advisor is enabled (rules: zero-token detectors, no model). Reviews: %d. %s Spend: $0.", st.Reviews, notesStatus(s.c, st)),
			Line: Line{On: true, Model: "rules", Reviewing: st.Pending || st.Backlog > 0, Backlog: st.Backlog, Reviews: st.Reviews},
		}
	}
	return Report{Text: s.text(st, res, prior), Line: s.line(st, res, prior)}
}

// text is /advisor status: model, context use, tokens and cost, summed
// over every advisor the host ran.
func (s *single) text(st advisor.Status, res *models.Resolved, prior Spent) string {
	c := s.c
	u := prior.Usage.Add(st.Usage)
	var b strings.Builder
	fmt.Fprintf(&b, "Advisor is enabled (%s). Context: %s", cmp.Or(st.Model, res.Ref().String()), Group(st.ContextTokens))
	if w := cmp.Or(st.Window, res.Info.ContextWindow); w > 0 {
		fmt.Fprintf(&b, " / %s tokens (%d%%)", Group(int64(w)), (st.ContextTokens*100+int64(w)/2)/int64(w))
	} else {
		b.WriteString(" tokens")
	}
	fmt.Fprintf(&b, ". Spend: %s input, %s output", Group(u.Input), Group(u.Output))
	if u.CacheRead > 0 {
		fmt.Fprintf(&b, ", %s cache read", Group(u.CacheRead))
	}
	if u.CacheWrite > 0 {
		fmt.Fprintf(&b, ", %s cache write", Group(u.CacheWrite))
	}
	// Each call is priced at the model that served it.
	fmt.Fprintf(&b, ", $%.4f. Reviews: %d (%d failed attempts, %d backlogs dropped, %d resets). %s",
		c.PriceUsage(append(append([]advisor.ModelUsage(nil), prior.ByModel...), st.Models...), res.Info.Price), st.Reviews, st.Failures, st.Dropped, st.Resets, notesStatus(c, st))
	b.WriteString(consultsStatus(st.Consults, st.ConsultFailures, st.ConsultsRefused, st.ConsultUsage))
	if st.Promotions+st.Compactions+st.Reprimes > 0 {
		fmt.Fprintf(&b, " Context maintenance: %d promotions, %d compactions, %d re-primes.", st.Promotions, st.Compactions, st.Reprimes)
	}
	if st.ProseStreak >= advisor.ProseWarnAfter {
		fmt.Fprintf(&b, " Warning: its last %d reviews ended in prose without calling advise, so nothing reached the agent; this model may not use tools as asked.", st.ProseStreak)
	}
	if h := HealthText(st); h != "" {
		fmt.Fprintf(&b, " Health: %s.", h)
	}
	for _, p := range st.Promoted {
		fmt.Fprintf(&b, " Promoted from %s to %s at about %s tokens.", p.From, p.To, Group(p.Need))
	}
	if len(st.Models) > 1 {
		parts := make([]string, 0, len(st.Models))
		for _, mu := range st.Models {
			parts = append(parts, fmt.Sprintf("%s $%.4f", mu.Model, c.PriceUsage([]advisor.ModelUsage{mu}, res.Info.Price)))
		}
		fmt.Fprintf(&b, " By model: %s.", strings.Join(parts, ", "))
	}
	return b.String()
}

// line is the status line's advisor.
func (s *single) line(rs advisor.Status, res *models.Resolved, prior Spent) Line {
	l := Line{
		On: true, Model: rs.Model, Reviewing: rs.Pending || rs.Backlog > 0, Backlog: rs.Backlog, Reviews: rs.Reviews,
		Cost:    s.c.PriceUsage(append(append([]advisor.ModelUsage(nil), prior.ByModel...), rs.Models...), res.Info.Price),
		Context: rs.ContextTokens, Window: int64(rs.Window),
	}
	if l.Model == "" {
		l.Model = res.Ref().String()
	}
	if l.Window == 0 {
		l.Window = int64(res.Info.ContextWindow)
	}
	if rs.ProseStreak >= advisor.ProseWarnAfter {
		l.Warning = fmt.Sprintf("its last %d reviews ended in prose without advise: nothing reaches the agent (/advisor status)", rs.ProseStreak)
	}
	if h := HealthText(rs); h != "" && rs.Health != advisor.HealthPaused {
		l.Warning = h
	}
	return l
}
