package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type testArgs struct {
	Path  string `json:"path"`
	Count int    `json:"count"`
	All   bool   `json:"all"`
}

func testParams() []param {
	return []param{
		{name: "path", kind: kindString, required: true, desc: "a path"},
		{name: "count", kind: kindInteger, min: intPtr(1), desc: "a count"},
		{name: "all", kind: kindBoolean, desc: "a flag"},
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    testArgs
		wantErr string
	}{
		{name: "all fields", raw: `{"path":"a.go","count":3,"all":true}`, want: testArgs{Path: "a.go", Count: 3, All: true}},
		{name: "optional left out", raw: `{"path":"a.go"}`, want: testArgs{Path: "a.go"}},
		{name: "null optional is absent", raw: `{"path":"a.go","count":null}`, want: testArgs{Path: "a.go"}},
		{name: "integral float accepted", raw: `{"path":"a","count":5.0}`, want: testArgs{Path: "a", Count: 5}},
		{name: "exponent integer accepted", raw: `{"path":"a","count":1e2}`, want: testArgs{Path: "a", Count: 100}},
		{name: "surrounding space", raw: " \n{\"path\":\"a\"}\n ", want: testArgs{Path: "a"}},
		{name: "missing required", raw: `{"count":2}`, wantErr: `t: missing required argument "path" (string)`},
		{name: "empty arguments", raw: ``, wantErr: `t: missing required argument "path" (string)`},
		{name: "null arguments", raw: `null`, wantErr: `t: missing required argument "path" (string)`},
		{name: "null required", raw: `{"path":null}`, wantErr: `t: missing required argument "path" (string)`},
		{name: "string for integer", raw: `{"path":"a","count":"3"}`, wantErr: `t: argument "count" must be an integer, got string "3"`},
		{name: "fraction for integer", raw: `{"path":"a","count":2.5}`, wantErr: `t: argument "count" must be an integer, got 2.5`},
		{name: "below minimum", raw: `{"path":"a","count":0}`, wantErr: `t: argument "count" must be at least 1, got 0`},
		{name: "number for string", raw: `{"path":12}`, wantErr: `t: argument "path" must be a string, got number 12`},
		{name: "array for string", raw: `{"path":["a"]}`, wantErr: `t: argument "path" must be a string, got array ["a"]`},
		{name: "string for boolean", raw: `{"path":"a","all":"true"}`, wantErr: `t: argument "all" must be a boolean (true or false), got string "true"`},
		{name: "unknown field", raw: `{"path":"a","file":"b"}`, wantErr: `t: unknown argument "file" (t takes: path, count, all)`},
		{name: "two unknown fields sorted", raw: `{"z":1,"path":"a","b":2}`, wantErr: `t: unknown argument "b", "z" (t takes: path, count, all)`},
		{name: "array arguments", raw: `[1,2]`, wantErr: `t: arguments must be a JSON object, got array`},
		{name: "string arguments", raw: `"path"`, wantErr: `t: arguments must be a JSON object, got string`},
		{name: "broken JSON", raw: `{"path":`, wantErr: `t: arguments are not valid JSON: unexpected end of JSON input`},
		{name: "long value shortened", raw: `{"path":"` + strings.Repeat("x", 100) + `","count":"` + strings.Repeat("y", 60) + `"}`,
			wantErr: `t: argument "count" must be an integer, got string "` + strings.Repeat("y", 39) + `…`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got testArgs
			err := decodeArgs("t", json.RawMessage(tt.raw), testParams(), &got)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decoded (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSchema(t *testing.T) {
	got := map[string]any{}
	if err := json.Unmarshal(schema(testParams()), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"path"},
		"properties": map[string]any{
			"path":  map[string]any{"type": "string", "description": "a path"},
			"count": map[string]any{"type": "integer", "description": "a count", "minimum": float64(1)},
			"all":   map[string]any{"type": "boolean", "description": "a flag"},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
}

// FuzzDecodeArgs checks that any input either decodes into values that
// respect the params or fails with an error that names the tool.
func FuzzDecodeArgs(f *testing.F) {
	for _, seed := range []string{
		`{"path":"a","count":3,"all":true}`, `{}`, ``, `null`, `[]`, `{"count":1e400}`,
		`{"path":"a","count":-0.0}`, `{"path":"\u0000"}`, `{"path":"a","path":"b"}`, "{\"path\":\"\xff\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got testArgs
		err := decodeArgs("t", raw, testParams(), &got)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "t: ") {
				t.Fatalf("error %q does not name the tool", err)
			}
			return
		}
		if got.Count < 0 {
			t.Fatalf("count %d is below its minimum", got.Count)
		}
		if !json.Valid(raw) && len(strings.TrimSpace(string(raw))) > 0 {
			t.Fatalf("invalid JSON %q accepted", raw)
		}
	})
}
