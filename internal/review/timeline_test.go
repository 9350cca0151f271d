package review

import (
	"testing"
)

func stepInfo(n int, failed bool) StepInfo {
	return StepInfo{N: n, Calls: []Call{{Tool: "bash", Command: "x", Failed: failed, ExitCode: -1}}}
}

func TestTimelineShortRunKeepsEverything(t *testing.T) {
	b := newTimelineBuilder(10, 8, 4)
	for n := 1; n <= 8; n++ {
		b.add(stepInfo(n, n == 3))
	}
	tl := b.timeline()
	if !tl.Complete || len(tl.Detail) != 8 || len(tl.Cells) != 8 || tl.Width != 1 {
		t.Fatalf("complete %v, %d details, %d cells, width %d", tl.Complete, len(tl.Detail), len(tl.Cells), tl.Width)
	}
	if tl.Cells[2].Failed != 1 || tl.Cells[2].First != 3 {
		t.Errorf("cell 3: %+v", tl.Cells[2])
	}
}

func TestTimelineStripHalves(t *testing.T) {
	b := newTimelineBuilder(1000, 8, 4)
	for n := 1; n <= 100; n++ {
		b.add(stepInfo(n, n%10 == 0))
	}
	tl := b.timeline()
	if len(tl.Cells) > 8 || tl.Width != 16 {
		t.Fatalf("%d cells of width %d, want at most 8 of 16", len(tl.Cells), tl.Width)
	}
	next, failed := 1, 0
	for _, c := range tl.Cells {
		if c.First != next || c.Last < c.First || c.Last-c.First+1 > tl.Width {
			t.Errorf("cell %+v after step %d", c, next-1)
		}
		next = c.Last + 1
		failed += c.Failed
	}
	if next != 101 || failed != 10 {
		t.Errorf("cells cover up to step %d with %d failures, want 100 and 10", next-1, failed)
	}
}

func TestTimelineLongRunKeepsStepsAroundFindings(t *testing.T) {
	const detailMax, window = 20, 6
	b := newTimelineBuilder(detailMax, 50, window)
	findings := map[int][2]int{ // reported at step: start, end
		8:   {5, 8},     // before the cap: kept from the start
		120: {115, 120}, // after the cap: recovered from the ring
	}
	for n := 1; n <= 200; n++ {
		b.add(stepInfo(n, false))
		if f, ok := findings[n]; ok {
			b.pin(f[0], f[1])
		}
	}
	tl := b.timeline()
	if tl.Complete {
		t.Fatal("a long run's detail is complete")
	}
	var got []int
	for _, si := range tl.Detail {
		got = append(got, si.N)
	}
	want := []int{3, 4, 5, 6, 7, 8, 9, 10, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122}
	if len(got) != len(want) {
		t.Fatalf("kept steps %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("kept steps %v, want %v", got, want)
		}
	}
}

func TestTimelineDetailIsBounded(t *testing.T) {
	const detailMax = 30
	b := newTimelineBuilder(detailMax, 40, 5)
	for n := 1; n <= 5000; n++ {
		b.add(stepInfo(n, true))
		if n%7 == 0 {
			b.pin(n-3, n)
		}
	}
	tl := b.timeline()
	if len(tl.Detail) > detailMax || len(tl.Cells) > 40 {
		t.Errorf("%d details and %d cells, want at most %d and 40", len(tl.Detail), len(tl.Cells), detailMax)
	}
	for i := 1; i < len(tl.Detail); i++ {
		if tl.Detail[i].N <= tl.Detail[i-1].N {
			t.Fatalf("detail out of order at %d", i)
		}
	}
}

func TestShorten(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ls -la", "ls -la"},
		{"  cat > f.py <<'EOF'\nprint(1)\nEOF", "cat > f.py <<'EOF' …"},
		{"abcdéf", "abcd …"},
		{"one\n\n", "one"},
	} {
		n := maxText
		if c.in == "abcdéf" {
			n = 5 // cuts inside é
		}
		if got := shorten(c.in, n); got != c.want {
			t.Errorf("shorten(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
