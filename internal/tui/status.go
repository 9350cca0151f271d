package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// statusRows are the status line's rows: the agent's, then the advisor's
// when it is on.
func (m *Model) statusRows() []string {
	t, st := m.theme, m.status
	var run string
	switch {
	case m.Running():
		run = t.running.Render(fmt.Sprintf("● running · turn %d step %d", m.state.Turn, m.state.Step)) + t.dim.Render(" · esc interrupts")
	case m.state.Aborted:
		run = t.bad.Render("■ interrupted") + t.dim.Render(" · c continues")
	default:
		run = t.ok.Render("○ idle")
	}
	if q := m.state.QueuedSteers + m.state.QueuedFollowUps; q > 0 {
		run += t.running.Render(fmt.Sprintf(" · %d queued", q))
	}
	agentRow := run + t.status.Render(" · "+st.Model+" · "+tokens(st.Input, st.Output, st.CacheRead)+fmt.Sprintf(" · $%.4f", st.Cost)+contextUse(st.Context, st.Window))
	rows := []string{agentRow}
	if a := st.Advisor; a.On {
		state := "idle"
		if a.Reviewing {
			state = "reviewing"
			if a.Backlog > 0 {
				state += " (" + Plural(a.Backlog, "step") + ")"
			}
		}
		row := t.statusHi.Render("advisor") + t.status.Render(" "+a.Model+" · "+state+fmt.Sprintf(" · %s · $%.4f", Plural(a.Reviews, "review"), a.Cost)+contextUse(a.Context, a.Window))
		if a.Warning != "" {
			row += " " + t.bad.Render("⚠ "+a.Warning)
		}
		rows = append(rows, row)
	} else {
		rows = append(rows, t.dim.Render("advisor off · /advisor on"))
	}
	rows[len(rows)-1] += m.approvalStatus()
	for i, r := range rows {
		rows[i] = ansi.Truncate(r, m.width, "…")
	}
	return rows
}

func (m *Model) statusLines() string { return strings.Join(m.statusRows(), "\n") }

// tokens writes token counts briefly: ↑12.3k ↓1.2k (cache 40k).
func tokens(in, out, cache int64) string {
	s := "↑" + short(in) + " ↓" + short(out)
	if cache > 0 {
		s += " cache " + short(cache)
	}
	return s
}

// contextUse is " · ctx 12% of 200k", or the size when the window is
// unknown.
func contextUse(ctx, window int64) string {
	if window > 0 {
		return fmt.Sprintf(" · ctx %d%% of %s", (ctx*100+window/2)/window, short(window))
	}
	if ctx > 0 {
		return " · ctx " + short(ctx)
	}
	return ""
}

// short writes n as 950, 12.3k or 1.2M.
func short(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
