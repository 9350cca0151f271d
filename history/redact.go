package history

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// MinSecretLength is the shortest value a [Redactor] hides because of where
// it came from (an environment variable with a secret-looking name, a
// value from the configuration, an assignment to a secret-looking name in
// the text). Anything shorter ("dev", "1234", "hunter2") would be found in
// ordinary words, numbers and code far more often than as a leaked
// credential, and replacing it everywhere would shred the transcript.
// Key patterns have their own, longer, minimums.
const MinSecretLength = 8

// A Redactor replaces secrets in text with a marker naming what was
// hidden, "[REDACTED:NAME]". It is built once, from the environment and
// the values the configuration names as secret, and then applied to every
// string the advisor would be shown, before any rendering: before
// truncation (which could cut a secret in two and leave half of it), before
// white space is collapsed (which would join a PEM block's lines), and to
// thinking as much as to text.
//
// It hides three kinds of secret:
//
//   - Known values: each value of an environment variable whose name looks
//     secret (a part of the name, split at "_", "-", "." and case changes,
//     is KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASS, PWD, PASSPHRASE,
//     CREDENTIAL(S), CREDS, AUTH, COOKIE, DSN or WEBHOOK, a joined
//     APIKEY, AUTHTOKEN, ACCESSTOKEN and the like, or a word that ends in
//     PASSWORD, PASSWD, PASSPHRASE, SECRET or TOKEN, as PGPASSWORD does),
//     and each extra value the caller passes. The NAME in the marker is
//     the variable's or the caller's name. A value is found wherever it
//     occurs, also in its JSON escaped form.
//   - Key shapes, whoever wrote them: Anthropic (sk-ant-…), OpenAI (sk-…,
//     sk-proj-…), GitHub (ghp_…, gho_…, ghu_…, ghs_…, ghr_…, github_pat_…),
//     AWS access key ids (AKIA…, ASIA…), Slack (xox?-…, xapp-…), Google API
//     keys (AIza…) and OAuth client secrets (GOCSPX-…), Stripe (sk_live_…,
//     rk_…, whsec_…), GitLab (glpat-…), SendGrid (SG.….…), DigitalOcean
//     (dop_v1_…), Slack webhook URLs, Hugging Face (hf_…), npm (npm_…),
//     JSON web tokens (eyJ….eyJ….…), PEM private key blocks (also one cut
//     off before its END line), bearer tokens and Authorization header
//     values, the password in a URL (scheme://user:PASSWORD@host), the
//     key of an Azure connection string (AccountKey=…, SharedAccessKey=…)
//     and a Docker config's registry "auth" (base64 of user:password).
//   - Assignments in the text to a name whose last part is TOKEN, SECRET,
//     PASSWORD, PASSWD, PASSPHRASE, CREDENTIAL(S), CREDS, a joined form
//     (APIKEY, ACCESSTOKEN, PGPASSWORD, …), or KEY after API, SECRET,
//     ACCESS, PRIVATE, CLIENT, APP, AUTH and the like: API_KEY=…,
//     "password": "…", client_secret: …, apiKey := "…". A bare KEY, PASS
//     or AUTH is not enough in text ("--- PASS: TestX", "cache_key = …").
//
// It leaves alone values shorter than [MinSecretLength], a plain word in
// one case (disabled, production), a run of one character (********),
// paths (/…, ./…, ~/…) and, in assignments, identifiers and dotted names
// without digits (password = cfg.Password, token = next_token(…)), which
// are code rather than secrets.
//
// Hashes and ids are not secrets by shape: a git commit hash, a SHA-256
// digest or a UUID is never redacted because of what it looks like, so the
// advisor can still follow commits and ids. It is redacted only where it
// is a known value (an environment variable with a secret name holds it)
// or is assigned to a secret-looking name.
//
// Redacting is idempotent: text already redacted comes out the same, so
// a message may pass the Redactor again on its way to a model.
//
// A nil *Redactor redacts nothing. A Redactor is immutable and safe for
// concurrent use.
type Redactor struct {
	literals []literal // longest first
	// pairs has a bit set for the first two bytes of each literal, so
	// that scan checks the literals only where one may start.
	pairs [1 << 10]uint64
	names []string
}

type literal struct {
	value, name string
}

// NewRedactor returns a Redactor for the environment env, given as
// os.Environ returns it ("NAME=value"), and for the extra secret values
// named in extra (the marker shows the name). Values that are too short or
// too ordinary to hide safely are skipped (see [Redactor]).
func NewRedactor(env []string, extra map[string]string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	add := func(name, value string) {
		if ordinaryValue(value) || seen[value] {
			return
		}
		seen[value] = true
		name = attrValue(name)
		r.literals = append(r.literals, literal{value, name})
		// The same value as a JSON string shows it escaped: with and
		// without HTML escaping, as other programs print it.
		for _, v := range jsonForms(value) {
			if v != value && !seen[v] {
				seen[v] = true
				r.literals = append(r.literals, literal{v, name})
			}
		}
		if !slices.Contains(r.names, name) {
			r.names = append(r.names, name)
		}
	}
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && secretEnvName(name) {
			add(name, value)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(k, extra[k])
	}
	// Longer values first, so a value that contains another is hidden
	// whole under its own name.
	slices.SortStableFunc(r.literals, func(a, b literal) int { return len(b.value) - len(a.value) })
	sort.Strings(r.names)
	for _, l := range r.literals {
		pair := uint16(l.value[0])<<8 | uint16(l.value[1])
		r.pairs[pair>>6] |= 1 << (pair & 63)
	}
	return r
}

// Names returns the names of the known values the Redactor hides (the
// environment variables and extra names it kept), sorted, for status
// displays.
func (r *Redactor) Names() []string {
	if r == nil {
		return nil
	}
	return slices.Clone(r.names)
}

// Redact returns s with every secret replaced by "[REDACTED:NAME]". It
// returns s itself, without allocating, when there is nothing to hide.
// Overlapping finds are merged into one marker, so no part of a secret is
// left over.
func (r *Redactor) Redact(s string) string {
	// Nothing shorter holds a secret this finds (the shortest, a URL's
	// password, needs "x://u:p@").
	if r == nil || len(s) < MinSecretLength {
		return s
	}
	var buf [8]span
	spans := r.find(s, buf[:0])
	if len(spans) == 0 {
		return s
	}
	slices.SortStableFunc(spans, func(a, b span) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return b.end - a.end
	})
	var sb strings.Builder
	sb.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		cur := spans[i]
		for i++; i < len(spans) && spans[i].start < cur.end; i++ {
			cur.end = max(cur.end, spans[i].end)
		}
		sb.WriteString(s[last:cur.start])
		sb.WriteString(redactedPrefix)
		sb.WriteString(cur.name)
		sb.WriteString("]")
		last = cur.end
	}
	sb.WriteString(s[last:])
	return sb.String()
}

// redactedPrefix opens every marker.
const redactedPrefix = "[REDACTED:"

// span is a secret found in a string: s[start:end], hidden as name.
type span struct {
	start, end int
	name       string
}

// find appends to dst every secret in s.
func (r *Redactor) find(s string, dst []span) []span {
	dst = r.scan(s, dst)
	dst = findAssignments(s, dst)
	dst = findURLPasswords(s, dst)
	return dst
}

// jsonForms returns v as it appears inside a JSON string, escaped with
// and without HTML escaping.
func jsonForms(v string) []string {
	var forms []string
	for _, html := range []bool{false, true} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(v) == nil {
			q := strings.TrimSuffix(b.String(), "\n")
			forms = append(forms, q[1:len(q)-1])
		}
	}
	return forms
}

// secretEnvName reports whether an environment variable's name says it
// holds a secret: one of its parts is a secret word.
func secretEnvName(name string) bool {
	for _, p := range nameParts(name) {
		if secretWord(p) || wordIn(p, envOnlyWords) {
			return true
		}
	}
	return false
}

// secretWord reports whether a name part marks a secret wherever it
// stands: one of secretWordList, or a word run together with one of
// secretSuffixes (PGPASSWORD, GHTOKEN, DBSECRET).
func secretWord(p string) bool {
	if wordIn(p, secretWordList) {
		return true
	}
	for _, w := range secretSuffixes {
		if len(p) > len(w) && strings.EqualFold(p[len(p)-len(w):], w) {
			return true
		}
	}
	return false
}

// secretSuffixes end the run-together names that mark a secret: few
// English words end in them, and none in the ones that name settings.
var secretSuffixes = []string{"PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "TOKEN"}

// secretWordList are the name parts that mark a secret wherever they
// stand, in a variable's name and in an assignment in text.
var secretWordList = []string{
	"TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS", "CREDS",
	"APIKEY", "SECRETKEY", "ACCESSKEY", "PRIVATEKEY", "AUTHTOKEN", "ACCESSTOKEN", "APITOKEN", "CLIENTSECRET",
}

// envOnlyWords mark a secret in an environment variable's name, but not
// in text, where they are too common: "--- PASS: TestX", "key: value",
// "auth: required". PWD is MYSQL_PWD's; the shell's PWD holds a path,
// which is never hidden.
var envOnlyWords = []string{"PASS", "PWD", "KEY", "KEYS", "AUTH", "COOKIE", "DSN", "WEBHOOK"}

// keyQualifierList are the parts that make a following KEY a secret in
// text, where "key" alone (cache_key, sort_key) is mostly code.
var keyQualifierList = []string{
	"API", "SECRET", "ACCESS", "PRIVATE", "CLIENT", "MASTER", "SIGNING", "ENCRYPTION", "LICENSE", "APP", "SERVICE", "AUTH",
}

// nameParts splits a name at non-alphanumerics and at lower-to-upper case
// changes, and returns the parts in upper case.
func nameParts(name string) []string {
	var parts []string
	start := -1
	for i := 0; i <= len(name); i++ {
		var c byte
		if i < len(name) {
			c = name[i]
		}
		alnum := isAlnum(c)
		camel := alnum && i > 0 && c >= 'A' && c <= 'Z' && name[i-1] >= 'a' && name[i-1] <= 'z'
		if start >= 0 && (!alnum || camel) {
			parts = append(parts, strings.ToUpper(name[start:i]))
			start = -1
		}
		if alnum && start < 0 {
			start = i
		}
	}
	return parts
}

// ordinaryValue reports whether a known value is too short or too common
// to hide (see [Redactor]).
func ordinaryValue(v string) bool {
	if len(v) < MinSecretLength {
		return true
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "~/") {
		return true
	}
	if strings.Count(v, v[:1]) == len(v) {
		return true
	}
	return plainWord(v)
}

// plainWord reports whether v is letters only, all in one case, and at
// most 16 of them: a word, not a key.
func plainWord(v string) bool {
	if len(v) > 16 {
		return false
	}
	lower, upper := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		default:
			return false
		}
	}
	return !(lower && upper)
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }
