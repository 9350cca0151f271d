package rules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var sidestepInfo = Info{
	Name:     "sidestep",
	Severity: Concern,
	Doc: "Working around an environment blocker instead of fixing it: a run fails because a " +
		"module is missing (\"No module named 'numpy'\") or the framework is not set up " +
		"(Django's ImproperlyConfigured, AppRegistryNotReady), the same blocker has already " +
		"stopped an earlier run, and within FollowUp steps (default 3) the agent, instead of " +
		"installing or configuring, writes or runs code that no longer imports what failed (a " +
		"copy of the logic, mocks, a script that prints the source). Such checks cannot show " +
		"whether the real code works. Test-runner modules (pytest, nose) are left out: using " +
		"another runner is fine. Reported once per blocker.",
}

var (
	missingModule = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?:No module named|Cannot find module|cannot load such file --) '?"?([A-Za-z_][\w.\-/@]*)`)
	})
	// missingLiterals start every match of missingModule.
	missingLiterals = []string{"No module named", "Cannot find module", "cannot load such file --"}
)

// unconfiguredIn returns the name of the framework-not-set-up error an
// output shows, or "".
func unconfiguredIn(s string) string {
	for _, e := range []string{"ImproperlyConfigured", "AppRegistryNotReady", "settings are not configured"} {
		if strings.Contains(s, e) {
			return e
		}
	}
	return ""
}

// testTools are modules whose absence only means another runner is
// needed.
var testTools = set("pytest", "nose", "nose2", "coverage", "tox", "hypothesis", "pytest_django", "unittest2")

// sidestep follows blockers and what the agent does right after them.
type sidestep struct {
	within   int
	blockers map[string]*blocker
	// pending is the last blocker hit, waiting for the agent's response.
	pending *blocker
}

type blocker struct {
	key      string
	what     string // the error, for messages
	roots    []string
	count    int
	first    int
	last     int
	reported bool
}

func (d *sidestep) reset() { *d = sidestep{within: d.within} }

func (d *sidestep) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		if p := d.pending; p != nil && v.n > p.last {
			if v.n-p.last > d.within {
				d.pending = nil
			} else {
				d.respond(p, a, v, emit)
			}
		}
		if a.Failed && a.Run {
			d.hit(a, v)
		}
	}
}

// hit records a run that failed on a blocker.
func (d *sidestep) hit(a *act, v *view) {
	tail := a.Output
	if len(tail) > 2*tailSize {
		tail = tail[len(tail)-2*tailSize:]
	}
	key, what, missing := "", "", ""
	var m []string
	for _, lit := range missingLiterals {
		if i := lastIndex(tail, lit); i >= 0 {
			m = missingModule().FindStringSubmatch(tail[i:min(len(tail), i+len(lit)+200)])
			break
		}
	}
	if m != nil {
		missing = strings.SplitN(strings.TrimLeft(m[1], "@"), ".", 2)[0]
		missing = strings.SplitN(missing, "/", 2)[0]
		if testTools[missing] {
			return
		}
		key, what = "module:"+missing, fmt.Sprintf("No module named '%s'", m[1])
	} else if m := unconfiguredIn(tail); m != "" {
		key, what = "unconfigured", m
	} else {
		return
	}
	if d.blockers == nil {
		d.blockers = map[string]*blocker{}
	}
	b := d.blockers[key]
	if b == nil || b.last < v.oldest() {
		if len(d.blockers) >= 64 {
			d.blockers = map[string]*blocker{}
		}
		b = &blocker{key: key, first: v.n}
		d.blockers[key] = b
	}
	if b.last != v.n {
		b.count++
	}
	b.last, b.what = v.n, strings.Clone(what)
	b.roots = b.roots[:0]
	if missing != "" {
		b.roots = append(b.roots, strings.Clone(missing))
	}
	// The traceback, for the import that failed, may start further up.
	trace := a.Output[max(0, len(a.Output)-16<<10):]
	if i := lastIndex(trace, "Traceback (most recent call last)"); i >= 0 {
		trace = trace[i:]
	}
	if r := firstImport(trace); r != "" {
		b.roots = append(b.roots, strings.Clone(r))
	}
	if a.hasCode {
		// What the failing code imported is what must keep being imported.
		for _, imp := range a.code.imports {
			if imp != "os" && imp != "sys" {
				b.roots = append(b.roots, imp)
			}
		}
	}
	d.pending = b
}

// respond judges an action that follows a blocker: an install or a rerun
// that still imports what failed is an attempt to fix it; new code that
// imports none of it is a sidestep.
func (d *sidestep) respond(b *blocker, a *act, v *view, emit func(candidate)) {
	switch {
	case a.install || a.Test:
		d.pending = nil
		return
	case a.writesCode:
		if imports(a.written, b.roots) {
			d.pending = nil
			return
		}
	case a.hasCode && a.Run:
		if imports(*a.code, b.roots) {
			d.pending = nil
			return
		}
	default:
		return // reading, searching: still deciding
	}
	d.pending = nil
	if b.count < 2 || b.reported || len(b.roots) == 0 {
		return
	}
	b.reported = true
	emit(candidate{subject: textSig("blocker:" + b.key), Finding: Finding{
		Detector:  sidestepInfo.Name,
		Severity:  sidestepInfo.Severity,
		StartStep: v.n,
		EndStep:   v.n,
		Message: fmt.Sprintf("%s has stopped %d runs, and this code avoids it instead of fixing it; install or configure what is missing so the real code can run.",
			b.what, b.count),
		Evidence: clip(a.Command, 100),
	}})
}

// firstImport returns the top-level module of the first import statement
// a traceback quotes ("from django.conf import settings" gives django):
// what the failing code was trying to use.
func firstImport(trace string) string {
	for line := range strings.Lines(trace) {
		l := strings.TrimSpace(line)
		var m string
		switch {
		case strings.HasPrefix(l, "from ") && strings.Contains(l, " import"):
			m = strings.Fields(l)[1]
		case strings.HasPrefix(l, "import ") && len(l) > len("import "):
			m = strings.Fields(l)[1]
		default:
			continue
		}
		m = strings.TrimRight(strings.SplitN(m, ".", 2)[0], ",")
		if m != "" && isWordByte(m[0]) {
			return m
		}
	}
	return ""
}

// imports reports whether code imports any of roots.
func imports(c codeFacts, roots []string) bool {
	for _, i := range c.imports {
		for _, r := range roots {
			if i == r {
				return true
			}
		}
	}
	return false
}
