package advisor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/tools"
)

// The tool's arguments are checked before anything is asked, and a
// consult with no answer is an error for the model saying so.
func TestAskToolErrors(t *testing.T) {
	asked := 0
	tool := AskTool(func(context.Context, string) (string, error) {
		asked++
		return "", ErrStopped
	})
	if def := tool.Definition(); def.Name != AskToolName || !strings.Contains(def.Description, "irreversible") || !strings.Contains(def.Description, "stuck") || !strings.Contains(def.Description, "compete") {
		t.Errorf("definition %+v", def)
	}
	for _, args := range []string{``, `[]`, `{}`, `{"question": 3}`, `{"question": "  "}`, `{"question": "q", "force": true}`} {
		if _, err := tool.Run(t.Context(), tools.Call{Name: AskToolName, Arguments: json.RawMessage(args)}); err == nil || !strings.HasPrefix(err.Error(), "ask_advisor: ") {
			t.Errorf("arguments %s: %v", args, err)
		}
	}
	if asked != 0 {
		t.Errorf("asked %d times with bad arguments", asked)
	}
	_, err := tool.Run(t.Context(), tools.Call{Name: AskToolName, Arguments: json.RawMessage(`{"question": "Is it safe?"}`)})
	if err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("with no advisor: %v", err)
	}
	limited := AskTool(func(context.Context, string) (string, error) {
		return "", errors.Join(ErrConsultLimit)
	})
	if _, err := limited.Run(t.Context(), tools.Call{Arguments: json.RawMessage(`{"question": "Again?"}`)}); err == nil || !strings.Contains(err.Error(), "used up") {
		t.Errorf("past the cap: %v", err)
	}
}
