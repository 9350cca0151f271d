package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// shape finds secrets of one recognisable form. Every form starts with a
// literal (one of its hints), so the text is scanned once for all hints
// (see hintIndex) and a shape's regular expression runs, anchored, only
// where one of its hints was found: ordinary text costs a table lookup per
// byte, never a regexp pass.
type shape struct {
	name  string
	hints []string
	// boundary requires the hint to start a word (no letter, digit or _
	// before it), as a key pasted into text does and as "task-" in a
	// longer word does not.
	boundary bool
	re       func() *regexp.Regexp // anchored at the hint
	// window bounds how far past the hint a match may reach (0 means
	// shortWindow), so that many hints cost linear time.
	window int
	// group is the submatch that is the secret; 0 for the whole match.
	group int
	valid func(secret string) bool
}

// shapes are the key forms every Redactor knows. Their expressions are
// compiled once, at first use, and never change.
var shapes = [...]shape{
	{name: "anthropic-key", hints: []string{"sk-ant-"}, boundary: true,
		re: later(`^sk-ant-[A-Za-z0-9_-]{20,}`)},
	{name: "openai-key", hints: []string{"sk-"}, boundary: true,
		re: later(`^sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
		// sk- starts many hyphenated words; a key mixes cases and digits.
		valid: func(s string) bool { return !strings.HasPrefix(s, "sk-ant-") && classes(s) == 3 }},
	{name: "github-token", hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, boundary: true,
		re: later(`^gh[pousr]_[A-Za-z0-9]{36,}`)},
	{name: "github-token", hints: []string{"github_pat_"}, boundary: true,
		re: later(`^github_pat_[A-Za-z0-9_]{22,}`)},
	{name: "aws-access-key", hints: []string{"AKIA", "ASIA", "ABIA", "ACCA"}, boundary: true,
		re:    later(`^A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}\b`),
		valid: func(s string) bool { return strings.ContainsAny(s[4:], "0123456789") }},
	{name: "slack-token", hints: []string{"xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-"}, boundary: true,
		re:    later(`^xox[abeoprs]-[A-Za-z0-9-]{10,}`),
		valid: func(s string) bool { return strings.ContainsAny(s, "0123456789") }},
	{name: "slack-token", hints: []string{"xapp-"}, boundary: true,
		re: later(`^xapp-[0-9]+-[A-Za-z0-9-]{10,}`)},
	{name: "google-api-key", hints: []string{"AIza"}, boundary: true,
		re: later(`^AIza[0-9A-Za-z_-]{35}`)},
	{name: "stripe-key", hints: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_"}, boundary: true,
		re: later(`^[rs]k_(?:live|test)_[0-9A-Za-z]{16,}`)},
	{name: "stripe-webhook-secret", hints: []string{"whsec_"}, boundary: true,
		re: later(`^whsec_[0-9A-Za-z+/=]{24,}`)},
	{name: "gitlab-token", hints: []string{"glpat-", "gldt-", "glrt-", "glptt-"}, boundary: true,
		re: later(`^gl(?:pat|dt|rt|ptt)-[0-9A-Za-z_-]{20,}`)},
	{name: "sendgrid-key", hints: []string{"SG."}, boundary: true,
		re: later(`^SG\.[0-9A-Za-z_-]{16,32}\.[0-9A-Za-z_-]{30,64}`)},
	{name: "google-oauth-secret", hints: []string{"GOCSPX-"}, boundary: true,
		re: later(`^GOCSPX-[0-9A-Za-z_-]{24,}`)},
	{name: "digitalocean-token", hints: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, boundary: true,
		re: later(`^do[opr]_v1_[0-9a-f]{64}`)},
	// A Slack incoming webhook's URL is its credential: the path after
	// /services/ (its host and the word services are kept, to say what it
	// was).
	{name: "slack-webhook", hints: []string{"hooks.slack.com/services/"},
		re: later(`^hooks\.slack\.com/services/([0-9A-Za-z_/-]{20,})`), group: 1},
	// The key in an Azure storage connection string
	// (DefaultEndpointsProtocol=…;AccountName=…;AccountKey=…), and the
	// shared access key in a Service Bus or Event Hubs one: the names are
	// kept, to say what it was; their case does not matter to Azure.
	{name: "azure-account-key", hints: []string{"AccountKey=", "accountkey=", "ACCOUNTKEY="}, boundary: true,
		re: later(`^(?i:accountkey)=([A-Za-z0-9+/]{20,}={0,2})`), group: 1},
	{name: "azure-shared-access-key", hints: []string{"SharedAccessKey=", "sharedaccesskey=", "SHAREDACCESSKEY="}, boundary: true,
		re: later(`^(?i:sharedaccesskey)=([A-Za-z0-9+/]{20,}={0,2})`), group: 1},
	// An Azure shared access signature: the sig= of a SAS URL, of a
	// connection string's SharedAccessSignature=, or of a Service Bus
	// token, is an HMAC-SHA256 in base64, URL-escaped or not; the rest of
	// the token (its permissions and expiry) is kept, to say what it was.
	{name: "azure-sas-signature", hints: []string{"sig="}, boundary: true,
		re: later(`^sig=([A-Za-z0-9%+/=]{40,80})`), group: 1,
		valid: hmacSHA256},
	// A Docker config's registry credential (~/.docker/config.json:
	// {"auths": {"host": {"auth": "…"}}}) is base64 of user:password;
	// also as a JSON string inside JSON (a tool's output in a log).
	{name: "docker-auth", hints: []string{`"auth"`, `\"auth\"`},
		re: later(`^\\?"auth\\?"[ \t]*:[ \t]*\\?"([A-Za-z0-9+/]{8,}={0,2})\\?"`), group: 1,
		valid: base64UserPassword},
	{name: "huggingface-token", hints: []string{"hf_"}, boundary: true,
		re:    later(`^hf_[A-Za-z0-9]{30,}`),
		valid: func(s string) bool { return classes(s[3:]) >= 2 }},
	{name: "npm-token", hints: []string{"npm_"}, boundary: true,
		re:    later(`^npm_[A-Za-z0-9]{36,}`),
		valid: func(s string) bool { return classes(s[4:]) >= 2 }},
	{name: "jwt", hints: []string{"eyJ"}, boundary: true,
		re: later(`^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
	// A key block, or, when the text was cut before its END line, the
	// base64 that follows the BEGIN line.
	{name: "private-key", hints: []string{"-----BEGIN"}, window: 16 << 10,
		re: later(`^-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,.-]*)`)},
	{name: "bearer-token", hints: []string{"Bearer", "bearer", "BEARER"}, boundary: true,
		re: later(`^(?i:bearer)[ \t]+([A-Za-z0-9._~+/-]+=*)`), group: 1,
		valid: func(s string) bool { return len(s) >= 16 && classes(s) >= 2 }},
	{name: "authorization", hints: []string{"Authorization", "authorization", "AUTHORIZATION"}, boundary: true,
		re:    later(`^(?i:authorization)["']?[ \t]*[:=][ \t]*["']?(?:(?i:basic|bearer|bot|digest|token)[ \t]+)?([A-Za-z0-9._~+/-]+=*)`),
		group: 1,
		valid: func(s string) bool { return len(s) >= MinSecretLength && classes(s) >= 2 }},
}

// later returns expr compiled by its first call, so that the shapes cost
// nothing when vigil starts. A bad expression panics at that first call;
// TestShapesCompile makes every one.
func later(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// shortWindow is the longest a key (or a header and its token) may be.
const shortWindow = 1024

// hintIndex finds the hints of every shape in one pass over the text: it
// maps the first two bytes of each hint to the hints that start with
// them, so most bytes cost one table lookup.
type hintIndex struct {
	slot [1 << 16]uint8 // 0, or 1 + an index into refs
	refs [][]hintRef
}

type hintRef struct {
	hint  string
	shape int // index in shapes
}

// hints returns the index of shapes' hints. It is built once, at first
// use (it is a 64 KiB table, which a command that never redacts need not
// touch), and never changes.
var hints = sync.OnceValue(func() *hintIndex {
	x := &hintIndex{}
	for i := range shapes {
		for _, h := range shapes[i].hints {
			pair := uint16(h[0])<<8 | uint16(h[1])
			if x.slot[pair] == 0 {
				x.refs = append(x.refs, nil)
				x.slot[pair] = uint8(len(x.refs))
			}
			k := x.slot[pair] - 1
			x.refs[k] = append(x.refs[k], hintRef{h, i})
		}
	}
	return x
})

// scan appends every known value and every secret of a known shape in s
// to dst, in one pass: at each byte, one lookup in the shapes' table and
// one in the Redactor's bitset of its values' first two bytes.
func (r *Redactor) scan(s string, dst []span) []span {
	// A shape is not looked for again inside a candidate of its own that
	// failed (the candidate's tail fails the same way), nor is any shape
	// inside a secret already found (it is hidden anyway): so a run of
	// hints costs linear time. Known values are looked for everywhere, so
	// one that starts inside a secret and runs past it is not cut.
	var tried [len(shapes)]int
	found := 0
	idx := hints()
	for i := 0; i+1 < len(s); i++ {
		pair := uint16(s[i])<<8 | uint16(s[i+1])
		if k := idx.slot[pair]; k != 0 && i >= found {
			for _, h := range idx.refs[k-1] {
				if i < tried[h.shape] || !strings.HasPrefix(s[i:], h.hint) {
					continue
				}
				sp, end, ok := shapes[h.shape].match(s, i)
				tried[h.shape] = end
				if ok {
					dst = append(dst, sp)
					found = sp.end
					break
				}
			}
		}
		if r.pairs[pair>>6]&(1<<(pair&63)) != 0 {
			for _, l := range r.literals {
				if strings.HasPrefix(s[i:], l.value) {
					dst = append(dst, span{i, i + len(l.value), l.name})
					break // the longest value found here covers the others
				}
			}
		}
	}
	return dst
}

// match reports the shape's secret whose hint starts at pos, if any, and
// where the text its expression matched ends (pos when it matched none).
func (sh *shape) match(s string, pos int) (secret span, end int, ok bool) {
	if sh.boundary && pos > 0 && isWordByte(s[pos-1]) {
		return span{}, pos, false
	}
	window := sh.window
	if window == 0 {
		window = shortWindow
	}
	m := sh.re().FindStringSubmatchIndex(s[pos:min(len(s), pos+window)])
	if m == nil {
		return span{}, pos, false
	}
	end = pos + m[1]
	if m[2*sh.group] < 0 {
		return span{}, end, false
	}
	secret = span{pos + m[2*sh.group], pos + m[2*sh.group+1], sh.name}
	if secret.start == secret.end || sh.valid != nil && !sh.valid(s[secret.start:secret.end]) {
		return span{}, end, false
	}
	return secret, end, true
}

// base64UserPassword reports whether s is base64 of user:password, as a
// Docker config's "auth" is.
// hmacSHA256 says s is 32 bytes in base64, URL-escaped or not: the
// signature of an Azure SAS token.
func hmacSHA256(s string) bool {
	if u, err := url.PathUnescape(s); err == nil { // keeps a + as it is
		s = u
	}
	b, err := base64.StdEncoding.DecodeString(s)
	return err == nil && len(b) == sha256.Size
}

func base64UserPassword(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(s)
	}
	return err == nil && bytes.IndexByte(b, ':') > 0
}

// classes counts the character classes (lower case, upper case, digits)
// that s uses.
func classes(s string) int {
	var lower, upper, digit int
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z':
			lower = 1
		case c >= 'A' && c <= 'Z':
			upper = 1
		case c >= '0' && c <= '9':
			digit = 1
		}
	}
	return lower + upper + digit
}

// findAssignments appends the values assigned to secret-looking names:
// NAME=value, NAME: value, "NAME": "value", NAME := "value", NAME =>
// 'value'. It looks at every ":" and "=" (found with IndexByte, which is
// fast on text that has few), reads the name before it and the value
// after it.
func findAssignments(s string, dst []span) []span {
	next := func(c byte, from int) int {
		if j := strings.IndexByte(s[from:], c); j >= 0 {
			return from + j
		}
		return len(s)
	}
	colon, eq := next(':', 0), next('=', 0)
	for {
		i := min(colon, eq)
		if i >= len(s) {
			return dst
		}
		resume := i + 1
		// The separator: ":", "=", ":=" or "=>"; "==", "!=", "<=" and
		// ">=" compare.
		sepEnd := i + 1
		switch {
		case s[i] == ':' && sepEnd < len(s) && s[sepEnd] == '=':
			sepEnd++
		case s[i] == '=' && sepEnd < len(s) && s[sepEnd] == '>':
			sepEnd++
		case s[i] == '=' && (sepEnd < len(s) && s[sepEnd] == '=' || i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0):
			sepEnd = -1
			resume = i + 2
		}
		if sepEnd > 0 && secretAssignee(s[:i]) {
			if start, end, ok := assignedValue(s, sepEnd); ok {
				dst = append(dst, span{start, end, "secret-assignment"})
				resume = end
			}
		}
		resume = min(resume, len(s))
		if colon < resume {
			colon = next(':', resume)
		}
		if eq < resume {
			eq = next('=', resume)
		}
	}
}

// secretAssignee reports whether the text before a separator ends with a
// secret-looking name (optionally quoted, then blanks).
func secretAssignee(before string) bool {
	j := len(before)
	for j > 0 && (before[j-1] == ' ' || before[j-1] == '\t') {
		j--
	}
	if j > 0 && (before[j-1] == '"' || before[j-1] == '\'') {
		j--
	}
	end := j
	for j > 0 && end-j < 64 && (isAlnum(before[j-1]) || before[j-1] == '_' || before[j-1] == '-' || before[j-1] == '.') {
		j--
	}
	if j == end {
		return false
	}
	prev, last := lastParts(before[j:end])
	if secretWord(last) {
		return true
	}
	return (strings.EqualFold(last, "key") || strings.EqualFold(last, "keys")) && wordIn(prev, keyQualifierList)
}

// lastParts returns the last two parts of a name, split as nameParts
// splits it, without allocating.
func lastParts(name string) (prev, last string) {
	end := len(name)
	var parts [2]string // the last part, then the one before
	for k := range parts {
		for end > 0 && !isAlnum(name[end-1]) {
			end--
		}
		start := end
		for start > 0 && isAlnum(name[start-1]) {
			if start < end && name[start] >= 'A' && name[start] <= 'Z' && name[start-1] >= 'a' && name[start-1] <= 'z' {
				break // a camelCase boundary
			}
			start--
		}
		parts[k] = name[start:end]
		end = start
	}
	return parts[1], parts[0]
}

// wordIn reports whether w is one of the words, ignoring case.
func wordIn(w string, words []string) bool {
	for _, x := range words {
		if len(x) == len(w) && strings.EqualFold(x, w) {
			return true
		}
	}
	return false
}

// maxValue is the longest assigned value looked at.
const maxValue = 512

// assignedValue finds the value after a separator ending at i: quoted (up
// to its closing quote on the same line) or bare (up to a blank, quote or
// bracket). It reports whether the value looks like a secret rather than
// code or an ordinary word.
func assignedValue(s string, i int) (start, end int, ok bool) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i >= len(s) {
		return 0, 0, false
	}
	if q := s[i]; q == '"' || q == '\'' || q == '`' {
		rest := s[i+1 : min(len(s), i+1+maxValue)]
		close := strings.IndexByte(rest, q)
		if close < 0 || strings.IndexByte(rest[:close], '\n') >= 0 {
			return 0, 0, false
		}
		start, end = i+1, i+1+close
	} else {
		start = i
		for i < len(s) && i-start < maxValue && !strings.ContainsRune(" \t\n\"'`,;()[]{}<>", rune(s[i])) {
			i++
		}
		end = i
		if end < len(s) && s[end] == '(' {
			return 0, 0, false // a call: token = next(...)
		}
	}
	v := s[start:end]
	// A marker is what an earlier pass left: redacting twice gives the
	// same text, with the name the first pass found.
	if ordinaryValue(v) || v[0] == '$' || v[0] == '%' || codeName(v) || strings.HasPrefix(v, redactedPrefix) {
		return 0, 0, false
	}
	return start, end, true
}

// codeName reports whether v is an identifier or a dotted name without
// digits: cfg.Password, os.Getenv, generate_token.
func codeName(v string) bool {
	for _, part := range strings.Split(v, ".") {
		if part == "" || !(part[0] == '_' || part[0] >= 'a' && part[0] <= 'z' || part[0] >= 'A' && part[0] <= 'Z') {
			return false
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
				return false
			}
		}
	}
	return true
}

// findURLPasswords appends the password of every scheme://user:password@
// in s. Its form makes it a credential whatever its length.
func findURLPasswords(s string, dst []span) []span {
	for from := 0; ; {
		i := strings.Index(s[from:], "://")
		if i < 0 {
			return dst
		}
		p := from + i + 3
		from = p
		// userinfo runs to "@" and holds no "/", "?", "#" or blank.
		colon, at := -1, -1
		for j := p; j < len(s) && j-p < 512; j++ {
			c := s[j]
			if c == '@' {
				at = j
				break
			}
			if c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '"' || c == '\'' || c == '<' || c == '>' {
				break
			}
			if c == ':' && colon < 0 {
				colon = j
			}
		}
		if colon > p && at > colon+1 {
			dst = append(dst, span{colon + 1, at, "url-password"})
			from = at + 1
		}
	}
}
