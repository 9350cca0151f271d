package attach

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tailscale/hujson"
)

// FuzzAttach checks, for any input: the parser accepts exactly what
// encoding/json does and prints it back unchanged; Attach never panics;
// when it succeeds its output is JSON, a second Attach changes nothing,
// and Detach gives back the input's settings less vigil's handlers, byte
// for byte when the input had none and no empty hook containers.
func FuzzAttach(f *testing.F) {
	attached, _ := Attach([]byte(userSettings), "s.json", ClaudeCode, bin)
	for _, s := range []string{
		"", "{}", "[]", "null", " {\n}\n", userSettings, string(attached.Data),
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "'/old path/vigil' hook codex --x"}]}]}}`,
		`{"hooks": {"Stop": [], "PostToolUse": [{"matcher": "Bash", "hooks": []}, 3, {"hooks": ["x", {"type": "command", "command": "vigil hook claude-code", "timeout": "10"}]}]}}`,
		`{"hooks": {}, "disableAllHooks": true}`,
		`{"a":[1,2.5e-3,-0,"\u00e9\n",true,false,null,{}]}`,
		"{\r\n\t\"model\": \"opus\"\r\n}",
		`{"a": 1,}`, "{\"a\": \"\xff\"}", `{"hooks": {"Stop": [}}`, `{"a": /* no */ 1}`, `{"a": "\x"}`, "{\"a\": 01}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, perr := parseDocument("f.json", data)
		if (perr == nil) != json.Valid(data) {
			t.Fatalf("parser error %v, but json.Valid = %v", perr, json.Valid(data))
		}
		if perr == nil && !bytes.Equal(doc.bytes(), data) {
			t.Fatalf("printing changed the document:\n%q\n%q", data, doc.bytes())
		}
		for _, a := range Agents() {
			res, err := Attach(data, "f.json", a, bin)
			if err != nil {
				continue
			}
			if !json.Valid(res.Data) {
				t.Fatalf("%s: attach wrote invalid JSON:\n%s", a, res.Data)
			}
			again, err := Attach(res.Data, "f.json", a, bin)
			if err != nil || len(again.Changes) != 0 || !bytes.Equal(again.Data, res.Data) {
				t.Fatalf("%s: a second attach changed %v (error %v)", a, again, err)
			}
			entries, err := Entries(res.Data, "f.json", a)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range Hooks(a) {
				found := false
				for _, e := range entries {
					found = found || e.Event == h.Event && e.Binary == bin
				}
				if !found {
					t.Fatalf("%s: no %s entry after attach:\n%s", a, h.Event, res.Data)
				}
			}
			back, err := Detach(res.Data, "f.json", a)
			if err != nil {
				t.Fatalf("%s: detach: %v", a, err)
			}
			if left, _ := Entries(back.Data, "f.json", a); len(left) != 0 {
				t.Fatalf("%s: detach left %v", a, left)
			}
			// What the input holds without vigil's handlers.
			bare, err := Detach(data, "f.json", a)
			if err != nil {
				t.Fatalf("%s: detach of the input: %v", a, err)
			}
			if diff := cmp.Diff(settingsOf(t, bare.Data), settingsOf(t, back.Data)); diff != "" {
				t.Fatalf("%s: attach then detach changed the settings (-input +got):\n%s", a, diff)
			}
			if len(bare.Changes) == 0 && perr == nil && !hasEmptyHookContainer(doc) && !bytes.Equal(back.Data, data) {
				t.Fatalf("%s: attach then detach is not the input:\n%q\n%q", a, data, back.Data)
			}
		}
	})
}

// settingsOf decodes a settings file for comparison, dropping the empty
// event lists and "hooks" object that detaching removes.
func settingsOf(t *testing.T, data []byte) any {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	if hooks, ok := v["hooks"].(map[string]any); ok {
		for ev, list := range hooks {
			if l, ok := list.([]any); ok && len(l) == 0 {
				delete(hooks, ev)
			}
		}
		if len(hooks) == 0 {
			delete(v, "hooks")
		}
	}
	return v
}

// hasEmptyHookContainer tells whether doc is not an object with members,
// or holds an empty "hooks" object or event list: containers an attach
// fills and a detach then removes.
func hasEmptyHookContainer(doc *document) bool {
	root, ok := doc.root.Value.(*hujson.Object)
	if !ok || len(root.Members) == 0 {
		return true
	}
	for _, m := range root.Members {
		hooks, ok := m.Value.Value.(*hujson.Object)
		if keyOf(m.Name) != "hooks" || !ok {
			continue
		}
		if len(hooks.Members) == 0 {
			return true
		}
		for _, ev := range hooks.Members {
			if list, ok := ev.Value.Value.(*hujson.Array); ok && len(list.Elements) == 0 {
				return true
			}
		}
	}
	return false
}
