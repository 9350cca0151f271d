package sidecar

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
)

// TestStatusServesWithheldNotes: GET /status counts the notes withheld
// from the agent and shows the latest few, each escaped to one line.
func TestStatusServesWithheldNotes(t *testing.T) {
	host := NewHost()
	sc, _, _ := newTest(t, Options{Host: host})
	for i := 1; i <= 7; i++ {
		host.Withhold(context.Background(), advisor.Advice{Note: "note " + strconv.Itoa(i) + "\nsecond line", Severity: advisor.SeverityConcern})
	}
	rec := httptest.NewRecorder()
	sc.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/status", nil))
	var st Stats
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		t.Fatalf("status %q: %v", rec.Body.String(), err)
	}
	if st.Withheld != 7 || len(st.WithheldNotes) != StatsWithheld {
		t.Fatalf("withheld %d, notes %q; want 7 and the latest %d", st.Withheld, st.WithheldNotes, StatsWithheld)
	}
	if first, last := st.WithheldNotes[0], st.WithheldNotes[StatsWithheld-1]; !strings.HasPrefix(first, "note 3") || !strings.HasPrefix(last, "note 7") {
		t.Errorf("notes %q; want notes 3 to 7, oldest first", st.WithheldNotes)
	}
	for _, n := range st.WithheldNotes {
		if strings.Contains(n, "\n") {
			t.Errorf("note %q not escaped to one line", n)
		}
	}
	// A disabled sidecar has no host and withholds nothing.
	if st := New(Options{Key: Key{Agent: AgentCodex, Session: "s1"}, Disabled: "broken"}).Stats(); st.Withheld != 0 || st.WithheldNotes != nil {
		t.Errorf("disabled sidecar stats %+v", st)
	}
}
