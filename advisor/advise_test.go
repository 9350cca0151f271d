package advisor

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAdviseToolDefinition(t *testing.T) {
	tool := adviseTool()
	if tool.Name != "advise" {
		t.Errorf("name: got %q, want %q", tool.Name, "advise")
	}
	if tool.Description == "" {
		t.Error("description is empty")
	}
	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties bool     `json:"additionalProperties"`
	}
	if err := json.Unmarshal(tool.Schema, &schema); err != nil {
		t.Fatalf("schema is not valid JSON: %v", err)
	}
	if schema.Type != "object" || len(schema.Required) != 1 || schema.Required[0] != "note" {
		t.Errorf("schema: got type %q required %v, want object requiring note", schema.Type, schema.Required)
	}
	if got := schema.Properties["note"].Type; got != "string" {
		t.Errorf("note type: got %q, want string", got)
	}
	if got := strings.Join(schema.Properties["severity"].Enum, ","); got != "nit,concern,blocker" {
		t.Errorf("severity enum: got %q, want nit,concern,blocker", got)
	}
	for _, s := range schema.Properties["severity"].Enum {
		if !Severity(s).Valid() {
			t.Errorf("schema severity %q is not Valid", s)
		}
	}
}

func TestParseAdvice(t *testing.T) {
	tests := []struct {
		name    string
		args    string
		want    Advice
		wantErr string
	}{
		{"note only", `{"note":"Run the tests."}`, Advice{Note: "Run the tests."}, ""},
		{"nit", `{"note":"x y","severity":"nit"}`, Advice{Note: "x y", Severity: SeverityNit}, ""},
		{"concern", `{"note":"x","severity":"concern"}`, Advice{Note: "x", Severity: SeverityConcern}, ""},
		{"blocker", `{"note":"x","severity":"blocker"}`, Advice{Note: "x", Severity: SeverityBlocker}, ""},
		{"null severity is omitted", `{"note":"x","severity":null}`, Advice{Note: "x"}, ""},
		{"note trimmed", `{"note":"  x \n"}`, Advice{Note: "x"}, ""},
		{"empty arguments", ``, Advice{}, `missing required argument "note"`},
		{"null arguments", `null`, Advice{}, `missing required argument "note"`},
		{"empty object", `{}`, Advice{}, `missing required argument "note"`},
		{"null note", `{"note":null}`, Advice{}, `missing required argument "note"`},
		{"note not a string", `{"note":123}`, Advice{}, `"note" must be a string, got a number`},
		{"blank note", `{"note":"   "}`, Advice{}, `"note" must not be empty`},
		{"unknown severity", `{"note":"x","severity":"invalid"}`, Advice{}, `"severity" must be one of`},
		{"empty severity", `{"note":"x","severity":""}`, Advice{}, `"severity" must be one of`},
		{"severity wrong case", `{"note":"x","severity":"Concern"}`, Advice{}, `got "Concern"`},
		{"severity not a string", `{"note":"x","severity":2}`, Advice{}, `got a number`},
		{"unknown argument", `{"note":"x","level":"high","a":1}`, Advice{}, `unknown argument "a", "level" (advise takes: note, severity)`},
		{"array", `["x"]`, Advice{}, `must be a JSON object`},
		{"bad JSON", `{"note":`, Advice{}, `not valid JSON`},
		{"invalid UTF-8", "{\"note\":\"\xff\"}", Advice{}, `not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseAdvice(json.RawMessage(tt.args))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one containing %q", err, tt.wantErr)
				}
				if !strings.HasPrefix(err.Error(), "advise: ") {
					t.Errorf("error %q does not name the tool", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSeverity(t *testing.T) {
	tests := []struct {
		sev          Severity
		valid, inter bool
	}{
		{SeverityOmitted, true, false},
		{SeverityNit, true, false},
		{SeverityConcern, true, true},
		{SeverityBlocker, true, true},
		{"urgent", false, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.sev)+"_", func(t *testing.T) {
			if got := tt.sev.Valid(); got != tt.valid {
				t.Errorf("Valid: got %v, want %v", got, tt.valid)
			}
			if got := tt.sev.Interrupting(); got != tt.inter {
				t.Errorf("Interrupting: got %v, want %v", got, tt.inter)
			}
		})
	}
}

func TestAdviseResult(t *testing.T) {
	tests := []struct {
		name string
		d    guardDecision
		r    noteRoute
		want []string
	}{
		{"steer", guardDecision{Deliver: true}, noteRoute{Channel: channelSteer}, []string{"Delivered", "interrupted"}},
		{"aside", guardDecision{Deliver: true}, noteRoute{Channel: channelAside}, []string{"Queued as an aside", "next step boundary"}},
		{"downgraded aside", guardDecision{Deliver: true}, noteRoute{Channel: channelAside, Reason: "interrupt cooldown"}, []string{"Queued as an aside", "(interrupt cooldown)"}},
		{"card", guardDecision{Deliver: true}, noteRoute{Channel: channelCard}, []string{"Held as a visible card", "when the user resumes"}},
		{"withheld", guardDecision{Deliver: true}, noteRoute{Channel: channelWithheld, Reason: withheldReason}, []string{"withheld from the agent", "(advisor.allowPromptInjection is false)"}},
		{"dropped", guardDecision{Reason: "it repeats an earlier note"}, noteRoute{Channel: channelSteer}, []string{"Dropped, not delivered: it repeats an earlier note."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := adviseResult(tt.d, tt.r)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("got %q, want it to contain %q", got, w)
				}
			}
		})
	}
}
