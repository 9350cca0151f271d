package attach

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const bin = "/usr/local/bin/vigil"

// userSettings is a project settings file as people keep them: other
// settings, and other tools' hooks on some of vigil's events.
const userSettings = `{
  "permissions": {
    "allow": ["Bash(go test:*)", "Read(./**)"],
    "deny": []
  },
  "env": {"GOFLAGS": "-mod=mod"},
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "gofmt -w \"$CLAUDE_PROJECT_DIR\"",
            "timeout": 30
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [{"type": "command", "command": "notify-send claude"}]
      }
    ]
  },
  "model": "opus"
}
`

// vigilGroup is the group Attach writes for one event at the usual depth.
func vigilGroup(matcher, command string, timeout int) string {
	m := ""
	if matcher != "" {
		m = "\n        \"matcher\": " + jsonString(matcher) + ","
	}
	return `      {` + m + `
        "hooks": [
          {
            "type": "command",
            "command": ` + jsonString(command) + `,
            "timeout": ` + itoa(timeout) + `
          }
        ]
      }`
}

func jsonString(s string) string { return string(quoteJSONString(s)) }

func itoa(n int) string { return string(jsonInt(n)) }

func TestAttachNewFile(t *testing.T) {
	cmd := bin + " hook claude-code"
	want := "{\n  \"hooks\": {\n" +
		"    \"PostToolUse\": [\n" + vigilGroup("*", cmd, 45) + "\n    ],\n" +
		"    \"PostToolUseFailure\": [\n" + vigilGroup("*", cmd, 45) + "\n    ],\n" +
		"    \"Stop\": [\n" + vigilGroup("", cmd, 45) + "\n    ],\n" +
		"    \"SessionStart\": [\n" + vigilGroup("", cmd, 10) + "\n    ],\n" +
		"    \"UserPromptSubmit\": [\n" + vigilGroup("", cmd, 10) + "\n    ],\n" +
		"    \"SessionEnd\": [\n" + vigilGroup("", cmd, 10) + "\n    ],\n" +
		"    \"PreCompact\": [\n" + vigilGroup("", cmd, 10) + "\n    ]\n" +
		"  }\n}\n"
	for _, in := range []string{"", " \n\n", "{}", "{}\n"} {
		res, err := Attach([]byte(in), "settings.json", ClaudeCode, bin)
		if err != nil {
			t.Fatal(err)
		}
		w := want
		if strings.HasPrefix(in, "{}") {
			w = strings.TrimSuffix(want, "\n") + strings.TrimPrefix(in, "{}")
		}
		if diff := cmp.Diff(w, string(res.Data)); diff != "" {
			t.Errorf("Attach(%q) (-want +got):\n%s", in, diff)
		}
		if len(res.Changes) != 7 {
			t.Errorf("Attach(%q): %d changes, want 7", in, len(res.Changes))
		}
		if !json.Valid(res.Data) {
			t.Errorf("Attach(%q) wrote invalid JSON", in)
		}
	}
}

func TestAttachKeepsUserSettings(t *testing.T) {
	res, err := Attach([]byte(userSettings), "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	cmd := bin + " hook claude-code"
	// vigil's group comes after gofmt's in PostToolUse; new events go at
	// the end of "hooks"; every other byte stays.
	want := strings.Replace(userSettings, `            "timeout": 30
          }
        ]
      }
    ],`, `            "timeout": 30
          }
        ]
      },
`+vigilGroup("*", cmd, 45)+`
    ],`, 1)
	var added strings.Builder
	for _, h := range Hooks(ClaudeCode)[1:] {
		added.WriteString(",\n    " + jsonString(h.Event) + ": [\n" + vigilGroup(h.Matcher, cmd, h.Timeout) + "\n    ]")
	}
	want = strings.Replace(want, `"command": "notify-send claude"}]
      }
    ]`, `"command": "notify-send claude"}]
      }
    ]`+added.String(), 1)
	if diff := cmp.Diff(want, string(res.Data)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Attaching again changes nothing, byte for byte.
	again, err := Attach(res.Data, "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Changes) != 0 || string(again.Data) != string(res.Data) {
		t.Errorf("second attach changed %v:\n%s", again.Changes, again.Data)
	}
}

func TestAttachFollowsLayout(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		// want is a fragment the output must hold.
		want string
	}{
		{"four spaces", "{\n    \"model\": \"opus\"\n}\n", "\n    \"hooks\": {\n        \"PostToolUse\": [\n            {\n                \"matcher\": \"*\",\n"},
		{"tabs", "{\n\t\"model\": \"opus\"\n}\n", "\n\t\"hooks\": {\n\t\t\"PostToolUse\": [\n\t\t\t{\n\t\t\t\t\"matcher\": \"*\",\n"},
		{"one line", `{"model":"opus"}`, `{"model":"opus","hooks":{"PostToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/usr/local/bin/vigil hook codex","timeout":45}]}],`},
		{"crlf", "{\r\n  \"model\": \"opus\"\r\n}\r\n", "\"opus\",\r\n  \"hooks\": {\r\n    \"PostToolUse\": [\r\n      {\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Attach([]byte(tc.in), "hooks.json", Codex, bin)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(res.Data), tc.want) {
				t.Errorf("output lacks %q:\n%s", tc.want, res.Data)
			}
			if tc.name == "crlf" && strings.Count(string(res.Data), "\n") != strings.Count(string(res.Data), "\r\n") {
				t.Errorf("a bare LF in a CRLF file:\n%q", res.Data)
			}
			back, err := Detach(res.Data, "hooks.json", Codex)
			if err != nil {
				t.Fatal(err)
			}
			if string(back.Data) != tc.in {
				t.Errorf("detach gave\n%q\nwant\n%q", back.Data, tc.in)
			}
		})
	}
}

func TestAttachUpdatesOlderEntries(t *testing.T) {
	old, err := Attach([]byte(userSettings), "settings.json", ClaudeCode, "/home/me/go/bin/vigil")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Attach(old.Data, "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Attach([]byte(userSettings), "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(fresh.Data), string(res.Data)); diff != "" {
		t.Errorf("moving the binary is not the same as attaching it there (-want +got):\n%s", diff)
	}
	if len(res.Changes) != 7 {
		t.Fatalf("changes %v, want 7 updates", res.Changes)
	}
	for _, c := range res.Changes {
		if c.Action != Updated || c.Was != "/home/me/go/bin/vigil hook claude-code" || c.Now != bin+" hook claude-code" {
			t.Errorf("change %+v", c)
		}
	}
}

func TestAttachEditsOnlyWhatDiffers(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		changes        []Change
	}{
		{
			name: "quoted old path and extra words are kept",
			in: `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "'/opt/old tools/vigil' hook codex --debug"}]}],
"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "'/opt/old tools/vigil' hook codex", "timeout": 5}]}]}}`,
			want: `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "/usr/local/bin/vigil hook codex --debug"}]}],
"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/vigil hook codex", "timeout": 45}]}]`,
			changes: []Change{
				{Event: "Notification", Action: Updated, Was: "'/opt/old tools/vigil' hook codex --debug", Now: bin + " hook codex --debug"},
				{Event: "PostToolUse", Action: Updated, Was: "'/opt/old tools/vigil' hook codex", Now: bin + " hook codex"},
			},
		},
		{
			name: "only the timeout",
			in:   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/local/bin/vigil hook codex", "statusMessage": "advising"}]}]}}`,
			want: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/local/bin/vigil hook codex", "statusMessage": "advising", "timeout": 45}]}]`,
			changes: []Change{
				{Event: "Stop", Action: Updated, Was: bin + " hook codex", Now: bin + " hook codex"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Attach([]byte(tc.in), "hooks.json", Codex, bin)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(res.Data), tc.want) {
				t.Errorf("got\n%s\nwant it to start with\n%s", res.Data, tc.want)
			}
			var updates []Change
			for _, c := range res.Changes {
				if c.Action == Updated {
					updates = append(updates, c)
				}
			}
			if diff := cmp.Diff(tc.changes, updates); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRecognisesOnlyVigilsOwnHooks(t *testing.T) {
	for _, tc := range []struct {
		command string
		agent   Agent
		want    bool
	}{
		{"/usr/local/bin/vigil hook claude-code", ClaudeCode, true},
		{"vigil hook codex", Codex, true},
		{"'/Users/a b/bin/vigil' hook claude-code", ClaudeCode, true},
		{`"/Users/a b/bin/vigil" hook claude-code`, ClaudeCode, true},
		{`/Users/a\ b/bin/vigil-dev hook  claude-code --verbose`, ClaudeCode, true},
		{"/usr/local/bin/vigil hook codex", ClaudeCode, false},
		{"/usr/local/bin/vigil review", ClaudeCode, false},
		{"/usr/bin/env vigil hook claude-code", ClaudeCode, false},
		{"echo vigil hook claude-code", ClaudeCode, false},
		{"/usr/local/bin/vigil hook 'claude-code", ClaudeCode, false},
		{"/opt/vigil/bin/advisor hook claude-code", ClaudeCode, false},
		{"", ClaudeCode, false},
	} {
		_, _, _, got := vigilBinary(tc.command, tc.agent)
		if got != tc.want {
			t.Errorf("vigilBinary(%q, %s) = %v, want %v", tc.command, tc.agent, got, tc.want)
		}
	}
	// A handler that is not a command, or not a string, is not vigil's.
	in := `{"hooks": {"Stop": [{"hooks": [
  {"type": "http", "command": "vigil hook codex", "url": "http://127.0.0.1:1/"},
  {"command": "vigil hook codex"},
  {"type": "command", "command": ["vigil", "hook", "codex"]},
  "vigil hook codex"
]}]}}`
	entries, err := Entries([]byte(in), "hooks.json", Codex)
	if err != nil || len(entries) != 0 {
		t.Errorf("Entries = %v, %v; want none", entries, err)
	}
}

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"/usr/local/bin/vigil", "/Users/Ann Lee/bin/vigil", "/tmp/it's/vigil", "/a/$HOME/`x`/vigil", `/a\b/"c"/vigil`, "/ü/vigil"} {
		q := ShellQuote(s)
		words, _, ok := shellWords(q+" hook codex", 3)
		if !ok || len(words) != 3 || words[0] != s {
			t.Errorf("ShellQuote(%q) = %q, read back as %q", s, q, words)
		}
	}
	if q := ShellQuote("/usr/local/bin/vigil"); q != "/usr/local/bin/vigil" {
		t.Errorf("a plain path was quoted: %s", q)
	}
}

func TestAttachWarnsOfDisabledHooks(t *testing.T) {
	res, err := Attach([]byte(`{"disableAllHooks": true}`), "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "disableAllHooks") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func TestAttachErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"trailing comma", "{\n  \"model\": \"opus\",\n}\n", "s.json:3:1: a comma before '}': JSON allows no trailing comma"},
		{"comment", "{\n  // mine\n  \"model\": \"opus\"\n}", "s.json:2:3: a comment (JSON has none; these files must be plain JSON): want a key in double quotes"},
		{"unclosed", "{\n  \"hooks\": {\n    \"Stop\": []\n", "s.json:4:1: unexpected end of file: want ',' or '}'"},
		{"missing comma", "{\n  \"a\": 1\n  \"b\": 2\n}", "s.json:3:3: unexpected '\"': want ',' or '}'"},
		{"single quotes", "{'a': 1}", "s.json:1:2: unexpected '\\'': want a key in double quotes"},
		{"bad literal", `{"a": tru}`, "s.json:1:7: unexpected 't': want a value"},
		{"column in characters", `{"é": "ü", "b": nul}`, "s.json:1:17: unexpected 'n': want a value"},
		{"control character", "{\"a\": \"x\ty\"}", "s.json:1:9: a control character (0x09) in a string: write it as an escape"},
		{"two values", `{} {}`, "s.json:1:4: unexpected '{' after the top-level value"},
		{"byte order mark", "\ufeff{}", "s.json:1:1: unexpected '\\ufeff': want a value"},
		{"top-level list", `[]`, "s.json:1:1: the file holds a list: want a JSON object"},
		{"hooks not an object", "{\n  \"hooks\": []\n}", "s.json:2:12: hooks: want an object of events, found a list"},
		{"hooks null", `{"hooks": null}`, "s.json:1:11: hooks: want an object of events, found null"},
		{"event not a list", `{"hooks": {"Stop": {"hooks": []}}}`, "s.json:1:20: hooks.Stop: want a list of groups, found an object"},
		{"hooks twice", "{\"hooks\": {},\n \"hooks\": {}}", `s.json:2:2: "hooks" appears twice in one object`},
		{"event twice", `{"hooks": {"Stop": [], "Stop": []}}`, `s.json:1:24: "Stop" appears twice in one object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Attach([]byte(tc.in), "s.json", ClaudeCode, bin)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestDetach(t *testing.T) {
	attached, err := Attach([]byte(userSettings), "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"round trip", string(attached.Data), userSettings},
		{"not attached", userSettings, userSettings},
		{"empty file", "", ""},
		{"only vigil", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"vigil hook claude-code"}]}]}}`, `{}`},
		{
			"vigil shares a group",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": "vigil hook claude-code"}]}]}}`,
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}`,
		},
		{
			"codex's entries stay",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "vigil hook codex"}, {"type": "command", "command": "vigil hook claude-code"}]}]}}`,
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "vigil hook codex"}]}]}}`,
		},
		{
			"other keys of an emptied hooks stay",
			"{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"vigil hook claude-code\"}]}]\n  },\n  \"model\": \"opus\"\n}\n",
			"{\n  \"model\": \"opus\"\n}\n",
		},
		{
			"an empty event of the user's stays",
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "vigil hook claude-code"}]}], "Notification": []}}`,
			`{"hooks": {"Notification": []}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Detach([]byte(tc.in), "settings.json", ClaudeCode)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(res.Data)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if (tc.in == tc.want) != (len(res.Changes) == 0) {
				t.Errorf("changes %v for an edit from %q to %q", res.Changes, tc.in, res.Data)
			}
		})
	}
}

func TestDetachWarnsOfMovedCodexHooks(t *testing.T) {
	in := `{"hooks": {
  "Stop": [
    {"hooks": [{"type": "command", "command": "vigil hook codex"}]},
    {"hooks": [{"type": "command", "command": "say done"}]}
  ],
  "PostToolUse": [
    {"hooks": [{"type": "command", "command": "say tool"}]},
    {"hooks": [{"type": "command", "command": "vigil hook codex"}]}
  ]
}}`
	res, err := Detach([]byte(in), "hooks.json", Codex)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "of Stop moved up") {
		t.Errorf("warnings %q, want one about Stop", res.Warnings)
	}
}

func TestEntries(t *testing.T) {
	res, err := Attach([]byte(userSettings), "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := Entries(res.Data, "settings.json", ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	var want []Entry
	for _, h := range Hooks(ClaudeCode) {
		want = append(want, Entry{Event: h.Event, Matcher: h.Matcher, Command: bin + " hook claude-code", Binary: bin, Timeout: h.Timeout})
	}
	if diff := cmp.Diff(want, entries); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if codex, err := Entries(res.Data, "settings.json", Codex); err != nil || len(codex) != 0 {
		t.Errorf("codex entries in Claude Code's settings: %v, %v", codex, err)
	}
}
