package transcript

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

// ompSession is an omp session file whose entries follow its title slot
// and header, each an object given as the exchange of one call: the
// call's tool and arguments, the result's text and whether it failed.
func ompSession(t *testing.T, calls ...ompExchange) string {
	t.Helper()
	var sb strings.Builder
	line := func(v map[string]any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	line(map[string]any{"type": "title", "v": 1, "title": "", "updatedAt": "2026-11-30T10:00:00.000Z", "pad": "    "})
	line(map[string]any{"type": "session", "version": 3, "id": "01a2-hl", "timestamp": "2026-11-30T10:00:00.000Z", "cwd": "/w"})
	parent := any(nil)
	n := 0
	entry := func(msg map[string]any) {
		n++
		id := fmt.Sprintf("e%03d", n)
		line(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": fmt.Sprintf("2026-11-30T10:00:%02d.000Z", n), "message": msg})
		parent = id
	}
	entry(map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "Fix add."}}})
	for k, c := range calls {
		id := fmt.Sprintf("toolu_hl_%d", k+1)
		entry(map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": id, "name": c.tool, "arguments": c.args}},
			"provider": "fake", "model": "claude-fake-1", "stopReason": "toolUse"})
		entry(map[string]any{"role": "toolResult", "toolCallId": id, "toolName": c.tool, "content": []any{map[string]any{"type": "text", "text": c.out}}, "isError": c.failed})
	}
	return sb.String()
}

type ompExchange struct {
	tool   string
	args   map[string]any
	out    string
	failed bool
}

// calcView is omp's read of calc.py in hashline mode.
const calcView = "[calc.py#3F2A]\n1:def add(a, b):\n2:    return a - b\n3:\n4:\n5:def mul(a, b):\n6:    return a * b"

// canonicalEdits returns the path and the canonical edits a call's
// arguments carry.
func canonicalEdits(t *testing.T, c llm.Block) (string, []map[string]string) {
	t.Helper()
	var a struct {
		Path  string `json:"path"`
		Edits []struct {
			OldText *string `json:"oldText"`
			NewText *string `json:"newText"`
		} `json:"edits"`
	}
	if err := json.Unmarshal(c.Arguments, &a); err != nil {
		t.Fatalf("arguments %s: %v", c.Arguments, err)
	}
	var edits []map[string]string
	for _, e := range a.Edits {
		if e.OldText == nil || e.NewText == nil {
			t.Fatalf("an edit without oldText or newText: %s", c.Arguments)
		}
		edits = append(edits, map[string]string{"oldText": *e.OldText, "newText": *e.NewText})
	}
	return a.Path, edits
}

// TestOmpHashlineEdits checks that omp's hashline edits get the canonical
// path and edits: the old text from the view with the tag the patch
// names, the view of the file after an edit derived from the one before
// it, an unknown tag leaving the old text empty, and the patch itself
// kept.
func TestOmpHashlineEdits(t *testing.T) {
	data := ompSession(t,
		ompExchange{tool: "read", args: map[string]any{"path": "calc.py"}, out: calcView},
		ompExchange{tool: "edit", args: map[string]any{"input": "[calc.py#3F2A]\nPUT 2.=2:\n+    return a + b\n"},
			out: "Updated calc.py\n[calc.py#9C1D]\n2:    return a + b"},
		// Against the new tag: an insertion after line 2 and a cut of mul,
		// both on lines the derived view knows.
		ompExchange{tool: "edit", args: map[string]any{"input": "[calc.py#9C1D]\nPUT >2:\n+\n+\n+def sub(a, b):\n+    return a - b\nCUT 5.=6\n"},
			out: "Updated calc.py\n[calc.py#77AB]"},
		// A tag no view showed.
		ompExchange{tool: "edit", args: map[string]any{"input": "[calc.py#DEAD]\nPUT 1.=1:\n+def add(x, y):"},
			out: "Missing hashline snapshot tag for calc.py", failed: true},
		// Older spelling, and a file op.
		ompExchange{tool: "edit", args: map[string]any{"input": "[calc.py#3F2A]\nSWAP 5.=6:\n+def mul(a, b):\n+    return b * a\nREM\n"},
			out: "rejected", failed: true},
	)
	r, err := readTranscript(strings.NewReader(data), "session.jsonl")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if len(r.runs) != 1 || r.runs[0].info.Format != FormatOmp {
		t.Fatalf("%d runs %+v", len(r.runs), r.runs)
	}
	run := r.runs[0]
	checkRun(t, run)
	if len(run.steps) != 5 {
		t.Fatalf("%d steps", len(run.steps))
	}
	want := []struct {
		path  string
		edits []map[string]string
	}{
		{"calc.py", []map[string]string{{"oldText": "    return a - b", "newText": "    return a + b"}}},
		{"calc.py", []map[string]string{
			{"oldText": "    return a + b", "newText": "    return a + b\n\n\ndef sub(a, b):\n    return a - b"},
			{"oldText": "def mul(a, b):\n    return a * b", "newText": ""},
		}},
		{"calc.py", []map[string]string{{"oldText": "", "newText": "def add(x, y):"}}},
		{"calc.py", []map[string]string{{"oldText": "def mul(a, b):\n    return a * b", "newText": "def mul(a, b):\n    return b * a"}}},
	}
	for i, w := range want {
		c := run.steps[i+1].Calls()[0]
		path, edits := canonicalEdits(t, c)
		if path != w.path || !reflect.DeepEqual(edits, w.edits) {
			t.Errorf("edit %d: path %q edits %q, want %q %q", i+1, path, edits, w.path, w.edits)
		}
		var kept struct {
			Input string `json:"input"`
		}
		if json.Unmarshal(c.Arguments, &kept); !strings.HasPrefix(kept.Input, "[calc.py#") {
			t.Errorf("edit %d: the patch is not kept: %s", i+1, c.Arguments)
		}
	}
	// The read is left as it was.
	if c := run.steps[0].Calls()[0]; string(c.Arguments) != `{"path":"calc.py"}` {
		t.Errorf("read arguments %s", c.Arguments)
	}
}

// TestOmpHashlineJSON checks the JSON shapes of earlier omp versions:
// anchors "N#ID" resolve against the rows a read showed with the same
// hash, and a hash the read did not show leaves the old text empty.
func TestOmpHashlineJSON(t *testing.T) {
	view := "1#ZP:def add(a, b):\n2#VK:    return a - b\n3#MQ:"
	data := ompSession(t,
		ompExchange{tool: "read", args: map[string]any{"path": "calc.py"}, out: view},
		ompExchange{tool: "edit", args: map[string]any{"path": "calc.py", "edits": []any{
			map[string]any{"op": "replace", "pos": "2#VK", "lines": []any{"    return a + b"}},
			map[string]any{"op": "append", "lines": "# end"},
		}}, out: "Updated calc.py"},
		ompExchange{tool: "edit", args: map[string]any{"path": "calc.py", "edits": []any{
			map[string]any{"set_line": map[string]any{"anchor": "2#XX", "new_text": "    return a + b"}},
			map[string]any{"insert_after": map[string]any{"anchor": "1#ZP", "text": "    \"\"\"Add.\"\"\""}},
		}}, out: "Hash mismatch at line 2", failed: true},
		// pi's own edit: left as it is.
		ompExchange{tool: "edit", args: map[string]any{"path": "calc.py", "edits": []any{map[string]any{"oldText": "a - b", "newText": "a + b"}}}, out: "ok"},
	)
	r, err := readTranscript(strings.NewReader(data), "session.jsonl")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	_, first := canonicalEdits(t, run.steps[1].Calls()[0])
	if want := []map[string]string{{"oldText": "    return a - b", "newText": "    return a + b"}, {"oldText": "", "newText": "# end"}}; !reflect.DeepEqual(first, want) {
		t.Errorf("first edit %q, want %q", first, want)
	}
	var kept struct {
		Edits []struct {
			Op  string `json:"op"`
			Pos string `json:"pos"`
		} `json:"edits"`
	}
	if json.Unmarshal(run.steps[1].Calls()[0].Arguments, &kept); len(kept.Edits) != 2 || kept.Edits[0].Op != "replace" || kept.Edits[0].Pos != "2#VK" {
		t.Errorf("the model's edits are not kept: %s", run.steps[1].Calls()[0].Arguments)
	}
	_, second := canonicalEdits(t, run.steps[2].Calls()[0])
	if want := []map[string]string{{"oldText": "", "newText": "    return a + b"}, {"oldText": "def add(a, b):", "newText": "def add(a, b):\n    \"\"\"Add.\"\"\""}}; !reflect.DeepEqual(second, want) {
		t.Errorf("second edit %q, want %q", second, want)
	}
	if c := run.steps[3].Calls()[0]; string(c.Arguments) != `{"edits":[{"newText":"a + b","oldText":"a - b"}],"path":"calc.py"}` {
		t.Errorf("pi's edit changed: %s", c.Arguments)
	}
}

// TestOmpHashlineUnseen checks that the lines an edit omp rejected for
// anchoring lines its read never showed are a view: the retry resolves.
func TestOmpHashlineUnseen(t *testing.T) {
	data := ompSession(t,
		ompExchange{tool: "read", args: map[string]any{"path": "calc.py"}, out: "[calc.py#3F2A]\n1:def add(a, b):"},
		ompExchange{tool: "edit", args: map[string]any{"input": "[calc.py#3F2A]\nPUT 2.=2:\n+    return a + b"},
			out: "This edit anchors to lines 2 of calc.py that [calc.py#3F2A] never displayed (it showed a partial range, a search hit, or a folded summary). Preview of the actual file content at the unseen line(s):\n  2:    return a - b\nRetry the same edit.", failed: true},
		ompExchange{tool: "edit", args: map[string]any{"input": "[calc.py#3F2A]\nPUT 2.=2:\n+    return a + b"}, out: "Updated calc.py"},
	)
	r, err := readTranscript(strings.NewReader(data), "session.jsonl")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	if _, e := canonicalEdits(t, run.steps[1].Calls()[0]); e[0]["oldText"] != "" {
		t.Errorf("before the reveal: %q", e)
	}
	if _, e := canonicalEdits(t, run.steps[2].Calls()[0]); e[0]["oldText"] != "    return a - b" {
		t.Errorf("after the reveal: %q", e)
	}
}

func TestParseHashlinePatch(t *testing.T) {
	type op struct {
		kind     hlKind
		from, to int
		body     string
	}
	cases := []struct {
		header string
		want   op
	}{
		{"PUT 2.=4:", op{hlReplace, 2, 4, "x"}},
		{"PUT 3:", op{hlReplace, 3, 3, "x"}},
		{"PUT 3-5:", op{hlReplace, 3, 5, "x"}},
		{"PUT 3..5:", op{hlReplace, 3, 5, "x"}},
		{"PUT <7:", op{hlBefore, 7, 7, "x"}},
		{"PUT >7:", op{hlAfter, 7, 7, "x"}},
		{"PUT <1:", op{hlHead, 1, 1, "x"}},
		{"PUT >$:", op{hlTail, 0, 0, "x"}},
		{"PUT 4*:", op{hlBlock, 4, 4, "x"}},
		{"PUT >40 @fn", op{hlFileOp, 40, 40, ""}},
		{"CUT 5.=9", op{hlCut, 5, 9, ""}},
		{"CUT 5", op{hlCut, 5, 5, ""}},
		{"SWAP 1.=3:", op{hlReplace, 1, 3, "x"}},
		{"DEL 4.=5", op{hlCut, 4, 5, ""}},
		{"INS.POST 2:", op{hlAfter, 2, 2, "x"}},
		{"INS.PRE 2:", op{hlBefore, 2, 2, "x"}},
		{"INS.HEAD:", op{hlHead, 0, 0, "x"}},
		{"INS.TAIL:", op{hlTail, 0, 0, "x"}},
		{"REM", op{hlFileOp, 0, 0, ""}},
		{"MV lib/calc.py", op{hlFileOp, 0, 0, ""}},
	}
	for _, c := range cases {
		s := parseHashlinePatch("[a.py#1A2B]\n" + c.header + "\n+x\n")
		if len(s) != 1 || s[0].path != "a.py" || s[0].tag != "1A2B" || len(s[0].ops) != 1 {
			t.Errorf("%s: sections %+v", c.header, s)
			continue
		}
		o := s[0].ops[0]
		if got := (op{o.kind, o.from, o.to, strings.Join(o.body, "\n")}); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.header, got, c.want)
		}
	}
	for _, bad := range []string{"PUT 5.=3:", "PUT x:", "PUT 0:", "HELLO 3", "CUT"} {
		if s := parseHashlinePatch("[a.py#1A2B]\n" + bad + "\n+x\n"); len(s) != 0 {
			t.Errorf("%q: %+v", bad, s)
		}
	}
	// Sections of two files; the second's ops are its own.
	s := parseHashlinePatch("*** Begin Patch\n[a.py#1A2B]\nPUT 1:\n+a\n[b/c.py#00ff]\nCUT 2\n*** End Patch\n")
	if len(s) != 2 || s[1].path != "b/c.py" || s[1].tag != "00ff" || len(s[1].ops) != 1 || s[1].ops[0].kind != hlCut {
		t.Errorf("two sections: %+v", s)
	}
}

// TestHashlineViewsBounded checks that the views kept are bounded, the
// oldest forgotten first.
func TestHashlineViewsBounded(t *testing.T) {
	var h hlState
	for i := range maxHashlineViews + 10 {
		h.scan(fmt.Sprintf("[f%d.py#%04X]\n1:x", i, i), "")
	}
	if len(h.views) != maxHashlineViews || len(h.order) != maxHashlineViews || h.views["f0.py#0000"] != nil || h.views["f73.py#0049"] == nil {
		t.Errorf("%d views, %d keys", len(h.views), len(h.order))
	}
	h.scan("[big.py#BEEF]\n1:"+strings.Repeat("y", maxHashlineBytes), "")
	if h.size > maxHashlineBytes+maxHashlineBytes || len(h.views) != 1 {
		t.Errorf("size %d with %d views", h.size, len(h.views))
	}
}

// FuzzHashline checks what the reader makes of any patch and view: ops
// within their bounds, canonical arguments that are a JSON object with
// the edits the patch's first file has, no panic in applying ops.
func FuzzHashline(f *testing.F) {
	f.Add("[calc.py#3F2A]\nPUT 2.=2:\n+    return a + b\nPUT >2:\n+x\nCUT 5.=6\nPUT <1:\n+h\nPUT >$:\n+t", calcView)
	f.Add("[a#0000]\nSWAP 1-1:\n+\nINS.POST 9:\nDEL 1\nREM\nMV b", "[a#0000]\n1:q\n  9:z")
	f.Add("[x#1111]\nPUT 3 @r\nCUT 1*\nPUT 2*:\n+b", "1#AB|x\n2:cd|y")
	f.Fuzz(func(t *testing.T, patch, view string) {
		var h hlState
		h.scan(view, "a")
		for _, sec := range parseHashlinePatch(patch) {
			for _, o := range sec.ops {
				if o.from > o.to || o.to > maxHashlineLine {
					t.Errorf("op %+v of %q", o, patch)
				}
			}
			if v := h.views[sec.path+"#"+sec.tag]; v != nil {
				h.apply(v, sec)
			}
		}
		raw, _ := json.Marshal(map[string]string{"input": patch})
		sections, shape := hashlineSections(raw)
		if shape == hlNone {
			return
		}
		out, ok := h.canonical(raw, sections, shape)
		var obj map[string]json.RawMessage
		if !ok || json.Unmarshal(out, &obj) != nil || obj["input"] == nil || obj["edits"] == nil {
			t.Errorf("canonical %s of %q", out, patch)
		}
		h.derive(sections, view)
	})
}
