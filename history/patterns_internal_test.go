package history

import "testing"

// TestShapesCompile compiles every shape's expression and builds the
// hints' index: both are built at first use, not at start, so a bad
// expression would otherwise panic only in the run that first meets its
// hint.
func TestShapesCompile(t *testing.T) {
	for i := range shapes {
		sh := &shapes[i]
		if first := sh.re(); first == nil || sh.re() != first {
			t.Errorf("shape %d (%s): expression not compiled once", i, sh.name)
		}
		for _, h := range sh.hints {
			pair := uint16(h[0])<<8 | uint16(h[1])
			k := hints().slot[pair]
			found := false
			if k != 0 {
				for _, r := range hints().refs[k-1] {
					found = found || r == hintRef{h, i}
				}
			}
			if !found {
				t.Errorf("shape %d (%s): hint %q not indexed", i, sh.name, h)
			}
		}
	}
}
