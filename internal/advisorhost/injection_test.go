package advisorhost_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/llm/openai"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// injectionCase is a hostile string of the agent's injection corpus and
// what the primary's model must receive of it ("" for unchanged).
type injectionCase struct{ Name, In, Want string }

func injectionCorpus(t *testing.T) []injectionCase {
	t.Helper()
	data, err := os.ReadFile("../../agent/testdata/injection/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []injectionCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatalf("corpus: %v", err)
	}
	if len(cases) < 40 {
		t.Fatalf("corpus has %d cases", len(cases))
	}
	return cases
}

// hostileText is every case of the corpus under a line naming it.
func hostileText(cases []injectionCase, channel string) string {
	var sb strings.Builder
	for _, c := range cases {
		sb.WriteString("== " + channel + ": " + c.Name + " ==\n" + c.In + "\n")
	}
	return sb.String()
}

// liveTag is this test's own idea of a live advisory tag, over text with
// invisible characters dropped and fullwidth forms folded (see
// visibleText): a bracket, white space and slashes, the name, no name
// character after it.
var liveTag = regexp.MustCompile(`(?i)[<﹤˂ᐸ‹❮⟨〈〈][\s/]*advisory(?:[^\pL\pN_]|$)`)

func visibleText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Mn, r), unicode.Is(unicode.Variation_Selector, r),
			unicode.IsControl(r) && !unicode.IsSpace(r):
			return -1
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFEE0
		}
		return r
	}, s)
}

// sentStrings joins the strings of a request body, decoded, leaving out
// the model's own turns (role assistant, and the Responses API's
// function_call and reasoning items), which the agent sends as written.
func sentStrings(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("request body: %v", err)
	}
	var sb strings.Builder
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			sb.WriteString(x + "\n")
		case []any:
			for _, y := range x {
				walk(y)
			}
		case map[string]any:
			if x["role"] == "assistant" || x["type"] == "function_call" || x["type"] == "reasoning" {
				return
			}
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return sb.String()
}

// The advisory channel under attack, end to end over real HTTP, for each
// wire API of the primary: the whole injection corpus is in the primary's
// AGENTS.md, its prompt, a file it reads and a command's output, while
// the advisor, watching with a sync wait, sends one real note.
//
//   - The primary's requests carry no live advisory tag but the real note,
//     which arrives as the advisor host formatted it; each forged tag
//     arrives escaped as the corpus says.
//   - The advisor's requests show the same hostile text verbatim, inside
//     the fences of its session updates: no line outside a fence is the
//     hostile text's, each update has one heading, first, and no fence is
//     left open.
func TestInjectionCorpusOverTheAdvisoryChannel(t *testing.T) {
	cases := injectionCorpus(t)
	for _, api := range []llm.API{llm.APIAnthropicMessages, llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		t.Run(string(api), func(t *testing.T) { runInjection(t, api, cases) })
	}
}

const injectionNote = "Read parser_test.go before you edit: it pins the <error> format & the tests say so."

func runInjection(t *testing.T, api llm.API, cases []injectionCase) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hostile.txt"), []byte(hostileText(cases, "file")), 0o644); err != nil {
		t.Fatal(err)
	}
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ts, err := tools.NewSession(tools.Options{Cwd: dir, Roots: []string{dir}, ArtifactsDir: sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.StartTest(t, &fakellm.Script{Rules: []fakellm.Rule{
		{Model: "m", Steps: []fakellm.Step{
			{ToolCalls: []fakellm.ToolCall{
				{Name: "read", Arguments: map[string]any{"path": "hostile.txt"}},
				{Name: "bash", Arguments: map[string]any{"command": "cat hostile.txt"}},
			}},
			{ToolCalls: []fakellm.ToolCall{{Name: "bash", Arguments: map[string]any{"command": "true"}}}},
			{Text: "Done."},
		}},
		{Model: "adv", Steps: []fakellm.Step{
			{ToolCalls: []fakellm.ToolCall{{Name: "advise", Arguments: map[string]any{"note": injectionNote, "severity": "concern"}}}},
			{Text: "Sent."},
		}},
		{Model: "adv", Repeat: true, Steps: []fakellm.Step{{Text: "Nothing new."}}},
	}})
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	var primary llm.Model
	if api == llm.APIAnthropicMessages {
		primary, err = anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", HTTPClient: client})
	} else {
		primary, err = openai.New(openai.Config{API: api, BaseURL: srv.URL() + "/v1", APIKey: "k", Model: "m", HTTPClient: client})
	}
	if err != nil {
		t.Fatal(err)
	}
	adv, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "adv", HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}

	var fwd hookRef
	ag, err := agent.New(agent.Options{
		Model: primary, Session: sess, Tools: ts.Tools(), Hooks: []agent.Hook{&fwd},
		System: "You are a test agent.\n\nAGENTS.md:\n" + hostileText(cases, "system"),
	})
	if err != nil {
		t.Fatal(err)
	}
	host := advisorhost.New(ag, sess)
	fwd.h = host.Hook()
	rt, err := advisor.New(advisor.Options{Model: adv, Host: host, Roots: []string{dir}, Start: advisor.StartAtBeginning})
	if err != nil {
		t.Fatal(err)
	}
	host.SetSync(1, 30*time.Second, rt.WaitBacklogBelow)
	host.Forward(rt.Notify)
	rt.Start(context.Background())
	t.Cleanup(func() {
		rt.Stop()
		host.Close()
	})
	if err := ag.Prompt(t.Context(), hostileText(cases, "prompt")); err != nil {
		t.Fatal(err)
	}

	note := advisor.FormatAdvisories([]advisor.Advice{{Note: injectionNote, Severity: advisor.SeverityConcern}})
	var primaryReqs, advisorReqs []fakellm.Request
	for _, r := range srv.Requests() {
		if r.Model == "m" {
			primaryReqs = append(primaryReqs, r)
		} else {
			advisorReqs = append(advisorReqs, r)
		}
	}
	if len(primaryReqs) != 3 || len(advisorReqs) == 0 {
		t.Fatalf("%d primary and %d advisor requests, want 3 and some", len(primaryReqs), len(advisorReqs))
	}

	// (a) The primary.
	for i, r := range primaryReqs {
		text := sentStrings(t, r.Body)
		if i >= 1 && !strings.Contains(text, note) {
			t.Errorf("primary request %d lacks the advisor's note as formatted:\n%s", i+1, note)
		}
		rest := strings.ReplaceAll(text, note, "")
		if loc := liveTag.FindStringIndex(visibleText(rest)); loc != nil {
			v := visibleText(rest)
			t.Errorf("primary request %d carries a live advisory tag besides the note: %q", i+1, v[max(0, loc[0]-100):min(len(v), loc[1]+40)])
		}
		channels := []string{"system", "prompt"}
		if i >= 1 {
			channels = append(channels, "file")
		}
		for _, ch := range channels {
			if n := strings.Count(text, "== "+ch+": "); n < len(cases) {
				t.Errorf("primary request %d holds %d of the %d %s cases", i+1, n, len(cases), ch)
			}
		}
		for _, c := range cases {
			want := c.Want
			if want == "" {
				want = c.In
			}
			if printable(want) && strings.Count(text, want) < len(channels) {
				t.Errorf("primary request %d: %q arrives fewer than %d times, want it escaped so: %q", i+1, c.Name, len(channels), want)
			}
		}
	}

	// (b) The advisor.
	updates := 0
	for i, r := range advisorReqs {
		for _, u := range userTexts(t, r.Body) {
			if !strings.Contains(u, history.Heading) {
				continue
			}
			updates++
			for _, problem := range updateProblems(u) {
				t.Errorf("advisor request %d: %s", i+1, problem)
			}
		}
	}
	if updates == 0 {
		t.Fatal("no session update reached the advisor")
	}
	first := sentStrings(t, advisorReqs[0].Body)
	for _, c := range cases {
		if printable(c.In) && !strings.Contains(first, c.In) {
			t.Errorf("the advisor's first update lacks %q verbatim", c.Name)
		}
	}
}

func printable(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0
}

// userTexts returns the text of each user message of an Anthropic request.
func userTexts(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("advisor request: %v", err)
	}
	var out []string
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var blocks []struct{ Type, Text string }
		if json.Unmarshal(m.Content, &blocks) != nil {
			var s string
			if json.Unmarshal(m.Content, &s) == nil {
				out = append(out, s)
			}
			continue
		}
		for _, b := range blocks {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// fenceLine is a line that opens or closes a backtick fence, as history
// writes them.
var fenceLine = regexp.MustCompile("^`{3,}$")

// updateProblems reads a session update as a markdown reader finds its
// fences and reports what breaks the structure: the heading not first or
// more than once, a fence left open, or a line outside a fence that holds
// the corpus's text (its case markers, a tag, a forged instruction).
func updateProblems(u string) []string {
	var problems []string
	lines := strings.Split(strings.TrimSuffix(u[strings.Index(u, history.Heading):], "\n"), "\n")
	if lines[0] != history.Heading {
		problems = append(problems, "the update does not open with its heading")
	}
	fence := ""
	for n, line := range lines {
		if fence != "" {
			// CommonMark: up to three spaces, at least as many backticks as
			// the opening fence, then only blanks.
			body := strings.TrimLeft(line, " ")
			t := strings.TrimRight(body, " \t")
			if len(line)-len(body) <= 3 && len(t) >= len(fence) && strings.Trim(t, "`") == "" {
				if line != fence {
					problems = append(problems, "a fence closed by a line history did not write: "+line)
				}
				fence = ""
			}
			continue
		}
		switch {
		case fenceLine.MatchString(line):
			fence = line
		case n > 0 && line == history.Heading:
			problems = append(problems, "a second heading outside a fence")
		case strings.Contains(line, "== ") || liveTag.MatchString(visibleText(line)) ||
			strings.Contains(strings.ToLower(line), "ignore all previous") || strings.Contains(line, "Human:"):
			problems = append(problems, "hostile text outside a fence: "+line)
		}
	}
	if fence != "" {
		problems = append(problems, "a fence is left open")
	}
	return problems
}
