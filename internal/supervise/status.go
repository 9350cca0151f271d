package supervise

import (
	"fmt"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
)

// notesStatus says what became of the advisor's notes: delivered to the
// agent, or, with advisor.allowPromptInjection false, withheld from it.
func notesStatus(c *Config, st advisor.Status) string {
	if !c.Settings.Advisor.AllowPromptInjection {
		return fmt.Sprintf("Notes: %d withheld from the agent (advisor.allowPromptInjection is false: shown here and in the transcript, never in the agent's context).", st.Withheld)
	}
	return fmt.Sprintf("Notes: %d delivered.", st.Delivered)
}

// consultsStatus is /advisor status's account of the agent's questions,
// counted apart from the reviews: "" when there were none.
func consultsStatus(answered, failed, refused int, u llm.Usage) string {
	if answered+failed+refused == 0 {
		return ""
	}
	return fmt.Sprintf(" Consults (the agent's questions): %d answered, %d failed, %d refused; %s input, %s cache read, %s output.",
		answered, failed, refused, Group(u.Input+u.CacheWrite), Group(u.CacheRead), Group(u.Output))
}

// HealthText says an advisor's health when it is not simply running: ""
// when it is.
func HealthText(st advisor.Status) string {
	switch st.Health {
	case advisor.HealthRunning, "":
		return ""
	case advisor.HealthQuota:
		return fmt.Sprintf("quota exhausted until %s (%s)", st.Until.Local().Format("15:04"), st.HealthDetail)
	case advisor.HealthError:
		return "error: " + st.HealthDetail
	}
	return string(st.Health)
}

// Group writes n with thousands separators: 1,234,567.
func Group(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// triggersText is "; a review every N tool calls or M minutes of run
// time)." for a periodic advisor's status.
func triggersText(st advisor.PeriodicStatus) string {
	var triggers []string
	if st.EveryToolCalls > 0 {
		triggers = append(triggers, fmt.Sprintf("%d tool calls", st.EveryToolCalls))
	}
	if st.EveryMinutes > 0 {
		triggers = append(triggers, fmt.Sprintf("%d minutes of run time", st.EveryMinutes))
	}
	if len(triggers) == 0 {
		return "; both triggers are 0, so no review runs)."
	}
	return fmt.Sprintf("; a review every %s).", strings.Join(triggers, " or "))
}

// periodicCounts is a periodic advisor's counters for its status: since
// the last review, the reviews by outcome (held ones with a roster), the
// last one and the consults.
func periodicCounts(st advisor.PeriodicStatus, since bool) string {
	var b strings.Builder
	if since {
		fmt.Fprintf(&b, " Since the last review: %d tool calls, %s of run time", st.ToolCalls, st.RunTime.Round(time.Second))
		switch {
		case st.InFlight:
			b.WriteString("; a review is running")
		case st.Due:
			b.WriteString("; a review is due")
		}
		b.WriteString(".")
	}
	fmt.Fprintf(&b, " Reviews: %d (%d steered, %d no change, %d malformed, %d blocked, %d dropped, %d failed", st.Reviews, st.Steered, st.NoChange, st.Malformed, st.Blocked, st.Dropped, st.Failed)
	if st.Held > 0 {
		fmt.Fprintf(&b, ", %d held back by the roster's guard", st.Held)
	}
	fmt.Fprintf(&b, "; %d cancelled, %d stood down).", st.Cancelled, st.StoodDown)
	last := string(st.Last)
	if last == "" {
		last = "none yet"
	}
	fmt.Fprintf(&b, " Last: %s.", strings.ReplaceAll(last, "_", " "))
	b.WriteString(consultsStatus(st.Consults, st.ConsultFailures, st.ConsultsRefused, st.ConsultUsage))
	return b.String()
}

// offMembers lists the roster's advisors turned off, for a roster's
// status.
func offMembers(c *Config, b *strings.Builder) {
	for _, adv := range c.roster().Advisors {
		if !c.MemberOn(adv) {
			fmt.Fprintf(b, "\n- %s: off (%s; /advisor on %s turns it on).", adv.Name, adv.Source, adv.Name)
		}
	}
}
