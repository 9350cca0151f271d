// Package archtest holds tests that keep the architecture of DESIGN.md true:
// which packages may import which, and that every package says what it is
// for in a doc comment.
package archtest
