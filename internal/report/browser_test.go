package report

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chromium finds a Chromium or Chrome binary: $VIGIL_CHROMIUM, or one on
// PATH. .ci/run installs Debian's chromium where apt-get is available.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VIGIL_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (install Debian's chromium package, or set VIGIL_CHROMIUM): the HTML report is not checked in a browser")
	return ""
}

// render loads page in headless Chromium and returns the DOM after its
// scripts ran, and the browser's log.
func render(t *testing.T, bin, page string) (dom, log string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0",
		"--dump-dom", page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

// consoleLine is how Chromium logs a console message or an uncaught
// error with --enable-logging=stderr.
var consoleLine = regexp.MustCompile(`(?m)^\[[^\]]*:CONSOLE[^\]]*\].*$`)

// pageProblems lists what shows that a page's scripts failed: console
// messages in the browser's log (the page logs nothing when all is
// well), errors its own handler counted, or a script that did not run to
// its end.
func pageProblems(dom, log string) []string {
	var out []string
	out = append(out, consoleLine.FindAllString(log, -1)...)
	if strings.Contains(dom, "data-script-errors=") {
		out = append(out, "the page counted script errors")
	}
	if !strings.Contains(dom, `data-ready="1"`) {
		out = append(out, "the page's script did not finish")
	}
	return out
}

func writePage(t *testing.T, files []*File, extra string) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, files); err != nil {
		t.Fatal(err)
	}
	html := strings.Replace(b.String(), "</body>", extra+"</body>", 1)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + filepath.ToSlash(path)
}

// TestHTMLInBrowser renders a report of real sessions in headless
// Chromium: it must load with no console error, its script must run to
// the end, and the findings must be on the page, with a link to a
// finding highlighting its steps.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	files := []*File{
		reviewed(t, "vigil/offcourse_repeat_failing_tests.jsonl"),
		reviewed(t, "claude-code/offcourse_revert_cycle.jsonl.gz"),
		{Path: "notes.txt", Err: errors.New("read notes.txt: not a transcript format vigil knows")},
	}
	dom, log := render(t, bin, writePage(t, files, "")+"#f2-r1-f4")
	if p := pageProblems(dom, log); len(p) > 0 {
		t.Fatalf("the page has problems:\n%s", strings.Join(p, "\n"))
	}
	for _, want := range []string{
		`<li class="finding sev-concern" id="f1-r1-f1"`, "repeated-failure", "revert-cycle",
		`<li class="finding sev-concern hl" id="f2-r1-f4"`, // the linked finding, highlighted by the script
		"3 files", "notes.txt",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	// The linked finding spans steps 5-8: their cells are highlighted.
	if n := strings.Count(dom, " hl\" data-first="); n != 4 {
		t.Errorf("%d cells highlighted, want the 4 of steps 5-8", n)
	}
}

// TestBrowserCatchesScriptErrors makes sure the check above would fail:
// a page with a broken script is caught.
func TestBrowserCatchesScriptErrors(t *testing.T) {
	bin := chromium(t)
	files := []*File{reviewed(t, "vigil/clean_normal_fix.jsonl")}
	dom, log := render(t, bin, writePage(t, files, "<script>notDefined();</script>"))
	p := pageProblems(dom, log)
	if len(p) < 2 || !strings.Contains(strings.Join(p, "\n"), "notDefined") {
		t.Errorf("a broken script went unnoticed: %q", p)
	}
}
