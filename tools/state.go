package tools

import (
	"crypto/sha256"
	"fmt"
)

// What a session remembers of the files it touched, and the warnings it
// derives from that. The rules are deliberately simple:
//
//   - read records the file's content hash and adds the lines it showed to
//     the file's seen lines;
//   - write records the new content as wholly seen;
//   - edit records the new content's hash and adds the lines of the new
//     text to the seen lines; line numbers are not shifted for lines an
//     edit added or removed above them, so after edits the seen lines are
//     approximate;
//   - before edit or write change an existing file, the session warns when
//     the file was never read or written in this session, when its content
//     differs from what the session last read or wrote (someone else changed
//     it), and, for edit, when the replaced text lies outside the lines the
//     session has seen.
//
// Warnings never block a change: the model sees them in the result and
// decides.

// fileRecord is what a session knows of one file.
type fileRecord struct {
	sum  [32]byte
	seen []lineRange
}

// lineRange is an inclusive range of 1-based line numbers.
type lineRange struct{ from, to int }

func contentSum(b []byte) [32]byte { return sha256.Sum256(b) }

// addRange adds r to the sorted, disjoint ranges rs, merging neighbours.
func addRange(rs []lineRange, r lineRange) []lineRange {
	if r.to < r.from {
		return rs
	}
	var out []lineRange
	placed := false
	for _, x := range rs {
		switch {
		case x.to+1 < r.from:
			out = append(out, x)
		case r.to+1 < x.from:
			if !placed {
				out = append(out, r)
				placed = true
			}
			out = append(out, x)
		default:
			r = lineRange{min(r.from, x.from), max(r.to, x.to)}
		}
	}
	if !placed {
		out = append(out, r)
	}
	return out
}

// covers reports whether rs include every line of r.
func covers(rs []lineRange, r lineRange) bool {
	for _, x := range rs {
		if x.from <= r.from && r.to <= x.to {
			return true
		}
	}
	return false
}

// recordSeen notes that the session saw lines seen of path, whose content
// hashes to sum. A different sum from the one recorded starts afresh.
func (s *Session) recordSeen(path string, sum [32]byte, seen lineRange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.files[path]
	if rec == nil || rec.sum != sum {
		rec = &fileRecord{sum: sum}
		s.files[path] = rec
	}
	rec.seen = addRange(rec.seen, seen)
}

// recordChange notes that the session itself changed path to content that
// hashes to sum, and saw lines seen of it. Earlier seen lines are kept.
func (s *Session) recordChange(path string, sum [32]byte, seen lineRange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.files[path]
	if rec == nil {
		rec = &fileRecord{}
		s.files[path] = rec
	}
	rec.sum = sum
	rec.seen = addRange(rec.seen, seen)
}

// changeWarnings returns the warnings for changing path, whose current
// content hashes to sum. changed, when non-zero, is the range of lines the
// change replaces.
func (s *Session) changeWarnings(path, shown string, sum [32]byte, changed lineRange) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.files[path]
	switch {
	case rec == nil:
		return []string{fmt.Sprintf("%s was not read in this session before this change; read files before changing them", shown)}
	case rec.sum != sum:
		return []string{fmt.Sprintf("%s changed on disk since this session last read or wrote it; the change was made to the new content, read it again to check", shown)}
	case changed.from > 0 && !covers(rec.seen, changed):
		return []string{fmt.Sprintf("the replaced text (lines %d-%d of %s) lies outside the lines this session has read; read them to check the edit", changed.from, changed.to, shown)}
	}
	return nil
}

// addArtifact lets read open path, a file the session created, even when it
// lies outside the roots.
func (s *Session) addArtifact(path string) {
	if r, err := resolvePath(path); err == nil {
		path = r
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.artifacts[path] = true
}

func (s *Session) isArtifact(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.artifacts[path]
}
