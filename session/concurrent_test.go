package session_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/session"
)

// TestConcurrentReadersAndWriter follows a session from several
// goroutines while one goroutine appends and branches. Each reader waits
// on Changed and reads deltas with Since, as the advisor does; together the
// deltas must be exactly the file's entries, and every Path a reader takes
// must end at the leaf it asked for.
func TestConcurrentReadersAndWriter(t *testing.T) {
	_, s := newSession(t)
	const n, readers = 300, 4
	seen := make([][]session.Entry, readers)
	errs := make(chan error, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() {
			timeout := time.After(time.Minute) // a bound, not a pacing sleep
			cursor := 0
			for len(seen[r]) < n {
				changed := s.Changed()
				delta, next := s.Since(cursor)
				seen[r] = append(seen[r], delta...)
				cursor = next
				if leaf := s.Leaf(); leaf != "" {
					path, err := s.Path(leaf)
					if err != nil || len(path) == 0 || path[len(path)-1].ID != leaf {
						errs <- fmt.Errorf("reader %d: Path(%s) = %d entries, %v", r, leaf, len(path), err)
						return
					}
				}
				if len(seen[r]) >= n {
					break
				}
				select {
				case <-changed:
				case <-timeout:
					errs <- fmt.Errorf("reader %d: saw %d of %d entries before the timeout", r, len(seen[r]), n)
					return
				}
			}
		})
	}
	var firsts []string
	for i := range n {
		if i%50 == 49 {
			if err := s.BranchFrom(firsts[len(firsts)/2]); err != nil {
				t.Fatal(err)
			}
		}
		e := mustAppend(t, s, user(fmt.Sprint(i)))
		firsts = append(firsts, e.ID)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all := s.Entries()
	checkTree(t, all)
	for r := range readers {
		if diff := cmp.Diff(ids(all), ids(seen[r])); diff != "" {
			t.Errorf("reader %d deltas differ from the file (-file +deltas):\n%s", r, diff)
		}
	}
}

// TestConcurrentWriters appends from several goroutines: appends are
// serialised, so the file is one chain in file order.
func TestConcurrentWriters(t *testing.T) {
	_, s := newSession(t)
	const writers, each = 4, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := s.Append(user(fmt.Sprint(w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	all := s.Entries()
	if len(all) != writers*each {
		t.Fatalf("%d entries, want %d", len(all), writers*each)
	}
	for i := 1; i < len(all); i++ {
		if all[i].ParentID != all[i-1].ID {
			t.Fatalf("entry %d has parent %s, want the previous entry %s", i, all[i].ParentID, all[i-1].ID)
		}
	}
	_, read, err := session.ReadFile(s.File())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, read); diff != "" {
		t.Errorf("file differs from memory (-memory +file):\n%s", diff)
	}
}

func TestSinceCursor(t *testing.T) {
	_, s := newSession(t)
	if got, next := s.Since(0); len(got) != 0 || next != 0 {
		t.Errorf("Since(0) on an empty session = %v, %d", got, next)
	}
	a := mustAppend(t, s, user("a"))
	b := mustAppend(t, s, user("b"))
	for _, tt := range []struct {
		name   string
		cursor int
		want   []string
		next   int
	}{
		{"from the start", 0, []string{a.ID, b.ID}, 2},
		{"delta", 1, []string{b.ID}, 2},
		{"at the end", 2, []string{}, 2},
		{"beyond the end", 9, []string{}, 2},
		{"negative", -1, []string{a.ID, b.ID}, 2},
	} {
		got, next := s.Since(tt.cursor)
		if diff := cmp.Diff(tt.want, ids(got)); diff != "" || next != tt.next {
			t.Errorf("%s: Since(%d) next %d (want %d), entries (-want +got):\n%s", tt.name, tt.cursor, next, tt.next, diff)
		}
	}
	if s.Len() != 2 {
		t.Errorf("Len = %d", s.Len())
	}
}
