package rules

import (
	"fmt"
	"strings"
)

var churnInfo = Info{
	Name:     "process-churn",
	Severity: Concern,
	Doc: "Background processes handled by force instead of by reason: the same background job " +
		"(a command ending in &, nohup, setsid, a call run in the background) started a third time within 10 steps with no edit " +
		"in between, or a third kill (kill, pkill, killall, fuser -k, xargs kill) within 10 steps. " +
		"Each relaunch or harder signal hides why the last one did not do what was wanted; look at " +
		"its log or its port first.",
}

// churnGap is the span, in steps, that launches and kills are counted in.
const churnGap = 10

// churn counts background launches per job and kills.
type churn struct {
	launches map[string][]int
	kills    []int
	// reported are the steps of the last reports, so one episode is
	// reported once.
	launchReported, killReported int
}

func (d *churn) reset() { *d = churn{} }

func (d *churn) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		for _, ef := range a.effects {
			if ef.changed && !ef.file.created {
				d.launches = nil // a change: the next start may behave differently
			}
		}
		if a.Refused || a.canonical == "" {
			continue
		}
		if isKill(a.canonical) {
			d.kills = recent(append(d.kills, v.n), v.n)
			if len(d.kills) >= 3 && d.killReported < d.kills[0] {
				d.killReported = v.n
				emit(candidate{subject: textSig("kill"), Finding: Finding{
					Detector: churnInfo.Name, Severity: churnInfo.Severity, StartStep: d.kills[0], EndStep: v.n,
					Message: fmt.Sprintf("%d kills in %d steps; another signal will not explain why the process will not stop or keeps coming back. Find what starts it, or what holds the port, and deal with that.",
						len(d.kills), v.n-d.kills[0]+1),
					Evidence: clip(a.Command, 120),
				}})
			}
			continue
		}
		if !a.Background {
			continue
		}
		key := coreKey(a.canonical)
		if d.launches == nil {
			d.launches = map[string][]int{}
		}
		steps := recent(append(d.launches[key], v.n), v.n)
		if len(d.launches) >= 32 {
			clear(d.launches)
		}
		d.launches[key] = steps
		if len(steps) >= 3 && d.launchReported < steps[0] {
			d.launchReported = v.n
			emit(candidate{subject: textSig("launch " + key), Finding: Finding{
				Detector: churnInfo.Name, Severity: churnInfo.Severity, StartStep: steps[0], EndStep: v.n,
				Message: fmt.Sprintf("`%s` has been started in the background %d times in %d steps with nothing changed; the earlier ones may still run. Check whether one is running and read its output before starting another.",
					clip(key, 60), len(steps), v.n-steps[0]+1),
				Evidence: clip(a.Command, 120),
			}})
		}
	}
}

// recent keeps the steps within churnGap of step n (and one entry per
// step).
func recent(steps []int, n int) []int {
	i := 0
	for i < len(steps) && steps[i] <= n-churnGap {
		i++
	}
	steps = steps[i:]
	if k := len(steps); k >= 2 && steps[k-2] == steps[k-1] {
		steps = steps[:k-1]
	}
	return steps
}

// isKill reports whether a command line kills processes.
func isKill(canonical string) bool {
	if !strings.Contains(canonical, "kill") && !strings.Contains(canonical, "fuser") {
		return false
	}
	for _, seg := range strings.FieldsFunc(canonical, func(r rune) bool { return r == ';' || r == '|' }) {
		w := strings.Fields(seg)
		if len(w) == 0 {
			continue
		}
		switch baseName(w[0]) {
		case "kill", "pkill", "killall":
			return true
		case "fuser":
			return contains(w, "-k")
		case "xargs":
			return len(w) > 1 && baseName(w[len(w)-1]) != "xargs" && (contains(w, "kill") || contains(w, "-9") && contains(w, "kill"))
		}
	}
	return false
}
