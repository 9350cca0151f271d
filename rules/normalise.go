package rules

import (
	"hash/maphash"
	"strings"
)

// A sig is a 64-bit signature of normalised text: two texts that differ
// only in volatile details have the same sig. Zero means "no text".
type sig uint64

// FNV-1a, inlined so that hashing needs no allocation and no interface.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// sigChunk bounds how much of a long output is hashed: its first and last
// sigChunk bytes. Outputs that differ only in the middle are rare (a
// command's output starts with what it is about and ends with how it
// went), and the bound keeps a step's cost independent of output size.
const sigChunk = 1 << 9

// tailSize bounds how much of an output's end is searched for its last
// lines and its test summary.
const tailSize = 1 << 10

// outputSig returns the signature of a tool's output with volatile details
// normalised (see normHash). Long outputs are hashed by head and tail.
func outputSig(s string) sig {
	if len(s) <= 2*sigChunk {
		return sig(normHash(fnvOffset, s, false))
	}
	h := normHash(fnvOffset, s[:sigChunk], false)
	h = normHash(h^0xff, s[len(s)-sigChunk:], false)
	return sig(h)
}

// rawSig returns a cheap signature of an output: its length and its
// first and last sigChunk bytes, as they are. Two results with the same
// rawSig are the same result; volatile details are not normalised.
func rawSig(s string) sig {
	if len(s) <= 2*sigChunk {
		return sig(maphash.String(hashSeed, s))
	}
	h := maphash.String(hashSeed, s[:sigChunk])
	h = (h ^ maphash.String(hashSeed, s[len(s)-sigChunk:])) * fnvPrime
	return sig((h ^ uint64(len(s))) * fnvPrime)
}

// commandSig returns the signature of a command: white space collapsed,
// temporary paths and hex ids normalised, but numbers kept, because
// `sed -n 10,20p` and `sed -n 30,40p` are different commands.
func commandSig(s string) sig {
	return sig(normHash(fnvOffset, s, true))
}

// kindNames0 are the kinds' names, each followed by a zero byte.
var kindNames0 = func() (t [len(kindNames)]string) {
	for i, n := range kindNames {
		t[i] = n + "\x00"
	}
	return t
}()

// actionSig returns the signature of an action's command: commandSig of
// its kind's name, a zero byte and the command, without joining them.
func actionSig(k Kind, command string) sig {
	prefix := kindNames0[KindOther]
	if int(k) < len(kindNames0) {
		prefix = kindNames0[k]
	}
	return sig(normHashAfter(fnvOffset, prefix, command, true))
}

// textSig hashes s exactly.
func textSig(s string) sig { return sig(maphash.String(hashSeed, s)) }

// mix combines two signatures, order-sensitively.
func mix(a, b sig) sig {
	h := uint64(a)
	for i := 0; i < 8; i++ {
		h ^= uint64(b >> (8 * i) & 0xff)
		h *= fnvPrime
	}
	return sig(h)
}

// normHash folds s into h with volatile details normalised:
//   - runs of white space become one space, and leading and trailing
//     space is dropped;
//   - a path component after /tmp/ or /var/folders/ becomes "*";
//   - a word that looks like a hex id (0x…, or seven or more hex digits
//     with at least one digit and one letter) becomes "#";
//   - unless keepNumbers, every run of digits becomes "0", which also
//     normalises timestamps, durations, line numbers, pids and ports.
//
// The normalised bytes are gathered in a small buffer and hashed a buffer
// at a time, which is several times faster than hashing byte by byte.
func normHash(h uint64, s string, keepNumbers bool) uint64 {
	return normHashAfter(h, "", s, keepNumbers)
}

// normHashAfter is normHash of prefix+s without joining them. The prefix
// must need no normalising: no white space, digit or slash, and, when not
// empty, a last byte that cannot be part of a word.
func normHashAfter(h uint64, prefix, s string, keepNumbers bool) uint64 {
	return normHashOf(h, prefix, s, keepNumbers)
}

// normHashOf is normHashAfter for text held as a string or as bytes.
func normHashOf[T string | []byte](h uint64, prefix string, s T, keepNumbers bool) uint64 {
	var n normBuf
	n.h = h
	n.write(prefix)
	// Most bytes are written as they are: lo is the start of the stretch
	// of s not yet written that is written unchanged, so that it goes into
	// the buffer in one copy. What is normalised is a run of white space,
	// a word with a digit or a path component, so a stretch always starts
	// at a word boundary.
	i := 0
	// Leading white space is dropped.
	for prefix == "" && i < len(s) && byteClass[s[i]] == classSpace {
		i++
	}
	lo := i
	for {
		// Letters, punctuation and single spaces between them stay as
		// they are.
		for i < len(s) && (byteClass[s[i]] == classPlain || s[i] == ' ' && i+1 < len(s) && byteClass[s[i+1]] != classSpace) {
			i++
		}
		if i == len(s) {
			break
		}
		switch c := s[i]; byteClass[c] {
		case classSpace:
			j := i + 1
			for j < len(s) && byteClass[s[j]] == classSpace {
				j++
			}
			if j == len(s) {
				// Trailing white space is dropped.
				writeTo(&n, s[lo:i])
				return n.sum()
			}
			writeTo(&n, s[lo:i])
			n.put(' ')
			lo, i = j, j
		case classDigit:
			// The word around the digit.
			from, to := i, i+1
			for from > lo && isWordByte(s[from-1]) {
				from--
			}
			for to < len(s) && isWordByte(s[to]) {
				to++
			}
			w := s[from:to]
			if len(w) >= 3 && isHexID(w) {
				writeTo(&n, s[lo:from])
				n.put('#')
				lo = to
			} else if !keepNumbers {
				writeTo(&n, s[lo:from])
				writeNumbersZeroed(&n, w)
				lo = to
			}
			i = to
		case classSlash:
			if hasPrefixAt(s, i, "/tmp/") || hasPrefixAt(s, i, "/var/folders/") {
				// Keep the prefix, replace the next component.
				j := i + 1
				for s[j] != '/' {
					j++
				}
				j++
				writeTo(&n, s[lo:j])
				n.put('*')
				for j < len(s) && !isPathEnd(s[j]) {
					j++
				}
				lo, i = j, j
				continue
			}
			i++
		}
	}
	writeTo(&n, s[lo:])
	return n.sum()
}

// hasPrefixAt reports whether s has prefix at i.
func hasPrefixAt[T string | []byte](s T, i int, prefix string) bool {
	if len(s)-i < len(prefix) {
		return false
	}
	for k := 0; k < len(prefix); k++ {
		if s[i+k] != prefix[k] {
			return false
		}
	}
	return true
}

// writeNumbersZeroed writes a word with each run of digits replaced by
// one "0".
func writeNumbersZeroed[T string | []byte](n *normBuf, w T) {
	for k := 0; k < len(w); k++ {
		d := w[k]
		if d >= '0' && d <= '9' {
			for k+1 < len(w) && w[k+1] >= '0' && w[k+1] <= '9' {
				k++
			}
			d = '0'
		}
		n.put(d)
	}
}

// normBuf gathers normalised bytes and hashes them a buffer at a time.
type normBuf struct {
	h       uint64
	buf     [256]byte
	n       int
	started bool
}

func (b *normBuf) put(c byte) {
	if b.n == len(b.buf) {
		b.flush()
	}
	b.buf[b.n] = c
	b.n++
}

func (b *normBuf) write(s string) { writeTo(b, s) }

// writeTo is normBuf.write for text held as a string or as bytes.
func writeTo[T string | []byte](b *normBuf, s T) {
	for len(s) > 0 {
		if b.n == len(b.buf) {
			b.flush()
		}
		k := copy(b.buf[b.n:], s)
		b.n += k
		s = s[k:]
	}
}

func (b *normBuf) flush() {
	b.h = (b.h ^ maphash.Bytes(hashSeed, b.buf[:b.n])) * fnvPrime
	b.n = 0
}

func (b *normBuf) sum() uint64 {
	if b.n > 0 {
		b.flush()
	}
	return b.h
}

// hashSeed seeds the hash of normalised text. Signatures are compared only
// within one process, so a per-process seed is fine.
var hashSeed = maphash.MakeSeed()

// The byte classes normHash tells apart: white space, digits, the
// slash, and everything else.
const (
	classPlain = iota
	classSpace
	classDigit
	classSlash
)

var byteClass = func() (t [256]uint8) {
	for _, c := range " \t\n\r\f\v" {
		t[c] = classSpace
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = classDigit
	}
	t['/'] = classSlash
	return t
}()

func hasDigit(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= '0' && w[i] <= '9' {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isPathEnd(c byte) bool {
	return c == '/' || c == ' ' || c == '\n' || c == '\t' || c == '"' || c == '\'' || c == ':' || c == ')'
}

// isHexID reports whether a word looks like an identifier rather than a
// word: 0x followed by hex digits, or a run of at least seven hex digits
// that mixes digits and letters (a git sha, a uuid part, an address).
func isHexID[T string | []byte](w T) bool {
	if len(w) > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X') {
		for i := 2; i < len(w); i++ {
			if !isHex(w[i]) {
				return false
			}
		}
		return true
	}
	if len(w) < 7 {
		return false
	}
	digit, letter := false, false
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// lastLines returns up to n of the last non-empty lines of s, oldest
// first, skipping wrapper lines that harnesses add around output (a
// closing </output> tag, an "[exit code N]" note). It looks only at the
// tail of s, so its cost does not grow with the output.
func lastLines(s string, n int) []string {
	return appendLastLines(nil, s, n)
}

// appendLastLines is lastLines appending to out, which must be empty:
// with a buffer of the caller's, it does not allocate.
func appendLastLines(out []string, s string, n int) []string {
	if len(s) > tailSize {
		s = s[len(s)-tailSize:]
	}
	for len(s) > 0 && len(out) < n {
		i := strings.LastIndexByte(s, '\n')
		line := strings.TrimSpace(s[i+1:])
		if i < 0 {
			s = ""
		} else {
			s = s[:i]
		}
		if line == "" || isWrapperLine(line) {
			continue
		}
		out = append(out, line)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

func isWrapperLine(line string) bool {
	switch {
	case line == "</output>" || line == "<output>":
		return true
	case strings.HasPrefix(line, "[exit code ") || strings.HasPrefix(line, "<returncode>"):
		return true
	case strings.HasPrefix(line, "Exit code") || strings.HasPrefix(line, "Process exited with code"):
		return true
	}
	return false
}

// errorSig returns the signature of how an output failed: its last three
// meaningful lines, normalised. Two runs that end in the same error have
// the same errorSig even when the noise before it differs.
func errorSig(output string) sig {
	h := fnvOffset
	var buf [3]string
	for _, l := range appendLastLines(buf[:0], output, 3) {
		h = normHash(h, l, false)
		h ^= '\n'
		h *= fnvPrime
	}
	return sig(h)
}

// clip shortens s to at most n bytes on a rune boundary, marking the cut
// with "…", and folds it onto one line.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
