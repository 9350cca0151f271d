package sidecar

import (
	"context"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func userEntry(id, text string) session.Entry {
	return session.Entry{ID: id, Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: text}}}}}
}

func TestHostSinceForgetsWhatWasRead(t *testing.T) {
	ctx := context.Background()
	h := NewHost()
	if got := h.Append(userEntry("a", "1"), userEntry("b", "2")); got != 2 {
		t.Fatalf("Append = %d, want 2", got)
	}
	es, next, _ := h.Since(ctx, 0)
	if len(es) != 2 || next != 2 {
		t.Fatalf("Since(0) = %d entries, next %d; want 2, 2", len(es), next)
	}
	h.Append(userEntry("c", "3"))
	es, next, _ = h.Since(ctx, 2)
	if len(es) != 1 || es[0].ID != "c" || next != 3 {
		t.Fatalf("Since(2) = %v, %d", es, next)
	}
	// The entries before cursor 2 were dropped; a cursor behind the kept
	// ones reads from what is kept.
	es, _, _ = h.Since(ctx, 0)
	if len(es) != 1 || es[0].ID != "c" {
		t.Fatalf("Since(0) after reads = %v, want only c", es)
	}
	if es, next, _ := h.Since(ctx, 10); len(es) != 0 || next != 3 {
		t.Fatalf("Since beyond the end = %v, %d", es, next)
	}
}

func TestHostViewStartsAtCompaction(t *testing.T) {
	h := NewHost()
	h.Append(userEntry("a", "old"), userEntry("b", "older"))
	h.Append(session.Entry{ID: "c", Body: &session.Compaction{Summary: "sum"}}, userEntry("d", "new"))
	view, cursor, _ := h.View(context.Background())
	if cursor != 4 || len(view) != 2 || view[0].ID != "c" || view[1].ID != "d" {
		t.Fatalf("View = %v at %d; want the compaction and d at 4", ids(view), cursor)
	}
	for i := range advisor.EntryBufferView + 10 {
		h.Append(userEntry("x", strings.Repeat("y", i%3)))
	}
	view, _, _ = h.View(context.Background())
	if len(view) > advisor.EntryBufferView {
		t.Fatalf("view holds %d entries, more than %d", len(view), advisor.EntryBufferView)
	}
}

func ids(es []session.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

func TestHostDelivery(t *testing.T) {
	ctx := context.Background()
	h := NewHost()
	h.Aside(ctx, advisor.Advice{Note: "a nit", Severity: advisor.SeverityNit})
	h.Steer(ctx, advisor.Advice{Note: "stop re-running it", Severity: advisor.SeverityConcern})
	h.Card(ctx, advisor.Advice{Note: "for later", Severity: advisor.SeverityConcern})
	got := h.Boundary()
	steer := strings.Index(got, "stop re-running it")
	nit := strings.Index(got, "a nit")
	if steer < 0 || nit < 0 || steer > nit {
		t.Fatalf("Boundary = %q; want the interrupting note, then the aside", got)
	}
	if strings.Contains(got, "for later") {
		t.Fatalf("Boundary handed over a card: %q", got)
	}
	if h.Boundary() != "" || h.StopNotes() != "" {
		t.Fatal("notes delivered twice")
	}
	if p := h.Prompt(); !strings.Contains(p, "for later") || !strings.HasPrefix(p, "<advisory") {
		t.Fatalf("Prompt = %q; want the card as an advisory", p)
	}
	if s, a, c := h.Pending(); s+a+c != 0 {
		t.Fatalf("pending after delivery: %d %d %d", s, a, c)
	}
}

func TestHostBoundaryRespectsTheSizeCap(t *testing.T) {
	ctx := context.Background()
	h := NewHost()
	long := strings.Repeat("x", MaxContext/3)
	for range 5 {
		h.Aside(ctx, advisor.Advice{Note: long})
	}
	var total int
	for range 5 {
		got := h.Boundary()
		if len(got) > MaxContext {
			t.Fatalf("one reply carries %d bytes, over %d", len(got), MaxContext)
		}
		total += strings.Count(got, "<advisory")
		if got == "" {
			break
		}
	}
	if total != 5 {
		t.Fatalf("%d notes delivered over the boundaries, want 5", total)
	}
	// A single note over the cap still goes, alone.
	h.Steer(ctx, advisor.Advice{Note: strings.Repeat("z", MaxContext+10)})
	h.Aside(ctx, advisor.Advice{Note: "small"})
	got := h.Boundary()
	if !strings.Contains(got, "zzz") || strings.Contains(got, "small") {
		t.Fatalf("oversize note: got %d bytes, small included: %v", len(got), strings.Contains(got, "small"))
	}
	if got := h.Boundary(); !strings.Contains(got, "small") {
		t.Fatalf("the aside left behind was not delivered next: %q", got)
	}
}
