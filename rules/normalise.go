package rules

import "strings"

// A sig is a 64-bit signature of normalised text: two texts that differ
// only in volatile details have the same sig. Zero means "no text".
type sig uint64

// FNV-1a, inlined so that hashing needs no allocation and no interface.
const (
	fnvOffset uint64 = 14695981039346656037
	fnvPrime  uint64 = 1099511628211
)

// sigChunk bounds how much of a long output is hashed: its first and last
// sigChunk bytes. Outputs that differ only in the middle of more than 8 KiB
// are rare, and the bound keeps a step's cost independent of output size.
const sigChunk = 4 << 10

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

// commandSig returns the signature of a command: white space collapsed,
// temporary paths and hex ids normalised, but numbers kept, because
// `sed -n 10,20p` and `sed -n 30,40p` are different commands.
func commandSig(s string) sig {
	return sig(normHash(fnvOffset, s, true))
}

// textSig hashes s exactly.
func textSig(s string) sig {
	h := fnvOffset
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return sig(h)
}

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
func normHash(h uint64, s string, keepNumbers bool) uint64 {
	space := false // a space is pending
	started := false
	put := func(c byte) {
		if space && started {
			h ^= ' '
			h *= fnvPrime
		}
		space = false
		started = true
		h ^= uint64(c)
		h *= fnvPrime
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			space = true
			i++
		case c == '/' && (strings.HasPrefix(s[i:], "/tmp/") || strings.HasPrefix(s[i:], "/var/folders/")):
			// Keep the prefix, replace the next component.
			j := i + 1 + strings.IndexByte(s[i+1:], '/') + 1
			for k := i; k < j; k++ {
				put(s[k])
			}
			put('*')
			for j < len(s) && !isPathEnd(s[j]) {
				j++
			}
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			w := s[i:j]
			if isHexID(w) {
				put('#')
			} else {
				for k := 0; k < len(w); {
					if !keepNumbers && w[k] >= '0' && w[k] <= '9' {
						put('0')
						for k < len(w) && w[k] >= '0' && w[k] <= '9' {
							k++
						}
						continue
					}
					put(w[k])
					k++
				}
			}
			i = j
		default:
			put(c)
			i++
		}
	}
	return h
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
func isHexID(w string) bool {
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
	if len(s) > sigChunk {
		s = s[len(s)-sigChunk:]
	}
	var out []string
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
	for _, l := range lastLines(output, 3) {
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
