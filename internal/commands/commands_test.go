package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// fake is a Target that records what it was asked to do.
type fake struct {
	busy    bool
	calls   []string
	advisor bool
	roster  string
	err     error
}

func (f *fake) record(s string) { f.calls = append(f.calls, s) }
func (f *fake) Busy() bool      { return f.busy }
func (f *fake) Model() string   { return "p/m" }
func (f *fake) AdvisorOn() bool { return f.advisor }
func (f *fake) Branch(id string) error {
	f.record("branch " + id)
	return f.err
}
func (f *fake) Compact(_ context.Context, in string) error {
	f.record("compact " + in)
	return f.err
}
func (f *fake) NewSession() (string, error) { f.record("new"); return "s2", f.err }
func (f *fake) Fork(id string) (string, string, error) {
	f.record("fork " + id)
	return "s3", "/f3.jsonl", f.err
}
func (f *fake) SetModel(ref string) error { f.record("model " + ref); return f.err }
func (f *fake) Session() (string, string) { return "s1", "/f1.jsonl" }
func (f *fake) AdvisorStatus() string     { return "status" }
func (f *fake) AdvisorTranscript(raw bool) string {
	if raw {
		return "raw"
	}
	return "compact"
}
func (f *fake) AdvisorRoster() string { return f.roster }
func (f *fake) SetAdvisorMember(name string, on bool) (string, error) {
	f.record(fmt.Sprintf("member %s %v", name, on))
	return "member", f.err
}
func (f *fake) SetAdvisor(on bool) (string, error) {
	f.advisor = on
	if on {
		return "on", nil
	}
	return "off", nil
}

func TestParse(t *testing.T) {
	for _, tc := range []struct{ line, name, args string }{
		{"/help", "help", ""},
		{"  /compact   keep the tests  ", "compact", "keep the tests"},
		{"model p/m:high", "model", "p/m:high"},
		{"/", "", ""},
	} {
		if n, a := Parse(tc.line); n != tc.name || a != tc.args {
			t.Errorf("Parse(%q) = %q, %q; want %q, %q", tc.line, n, a, tc.name, tc.args)
		}
	}
}

// TestRun: each command calls its Target operation with the arguments
// and answers what it did; arguments are trimmed; errors pass through.
func TestRun(t *testing.T) {
	r := New()
	for _, tc := range []struct{ line, out, call string }{
		{"/compact  now ", "compacted", "compact now"},
		{"/new", "new session s2", "new"},
		{"/branch e7", "branched from e7", "branch e7"},
		{"/fork", "forked into s3 (/f3.jsonl)", "fork "},
		{"/fork e7", "forked into s3 (/f3.jsonl)", "fork e7"},
		{"/model", "p/m", ""},
		{"/model q/n", "model q/n", "model q/n"},
		{"/session", "s1 /f1.jsonl", ""},
		{"/advisor status", "status", ""},
		{"/advisor dump", "compact", ""},
		{"/advisor dump  RAW", "raw", ""},
		{"/advisor on", "on", ""},
		{"/advisor Off", "off", ""},
		{"/advisor", "on", ""},
		{"/advisor off security", "member", "member security false"},
		{"/advisor list", "No roster: WATCHDOG.yml declares no advisors, so the single advisor (modelRoles.advisor) is the roster of one.", ""},
	} {
		f := &fake{}
		out, err := r.Run(context.Background(), f, tc.line)
		if err != nil || out != tc.out {
			t.Errorf("%s: %q, %v; want %q", tc.line, out, err, tc.out)
		}
		if got := strings.Join(f.calls, "; "); got != tc.call {
			t.Errorf("%s: called %q, want %q", tc.line, got, tc.call)
		}
	}
	f := &fake{err: errors.New("disk full")}
	if _, err := r.Run(context.Background(), f, "/new"); err == nil || err.Error() != "disk full" {
		t.Errorf("/new failing: %v", err)
	}
	for line, want := range map[string]string{
		"/nope":         "unknown command /nope (try /help)",
		"/branch":       "/branch needs an entry id",
		"/advisor what": "usage: /advisor [on|off [NAME]|list|status|dump [raw]]",
	} {
		if _, err := r.Run(context.Background(), &fake{}, line); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

// TestBusy: while a turn runs, commands that change the session are
// refused without being run; /model only reads without arguments, and
// the reading commands run.
func TestBusy(t *testing.T) {
	r := New()
	for line, refused := range map[string]bool{
		"/compact": true, "/new": true, "/branch e1": true, "/fork": true, "/model q/n": true,
		"/model": false, "/session": false, "/help": false, "/advisor status": false,
	} {
		f := &fake{busy: true}
		_, err := r.Run(context.Background(), f, line)
		name, _ := Parse(line)
		want := "/" + name + ": a turn is running; wait for idle or abort it first"
		if refused && (err == nil || err.Error() != want || len(f.calls) != 0) {
			t.Errorf("%s while busy: %v, calls %v; want refused", line, err, f.calls)
		}
		if !refused && err != nil {
			t.Errorf("%s while busy: %v", line, err)
		}
	}
}

// TestHelp: one line per command, in the registry's order, each with its
// usage and what it does.
func TestHelp(t *testing.T) {
	r := New()
	lines := strings.Split(r.Help(), "\n")
	cmds := r.Commands()
	if len(lines) != len(cmds) || len(cmds) != 8 {
		t.Fatalf("%d help lines for %d commands:\n%s", len(lines), len(cmds), r.Help())
	}
	for i, c := range cmds {
		if want := "/" + c.Name + " " + c.Args + "\t" + c.Help; lines[i] != want {
			t.Errorf("line %d: %q, want %q", i, lines[i], want)
		}
	}
	if lines[1] != "/compact [instructions]\tsummarise older history now" {
		t.Errorf("compact's line: %q", lines[1])
	}
	out, err := r.Run(context.Background(), &fake{}, "/help")
	if err != nil || out != r.Help() {
		t.Errorf("/help: %q, %v", out, err)
	}
}
