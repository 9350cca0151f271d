package history_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
)

// Test keys are assembled at run time so that no scanner mistakes this
// file for a leak.
func key(parts ...string) string { return strings.Join(parts, "") }

func TestRedactShapes(t *testing.T) {
	r := history.NewRedactor(nil, nil)
	tests := []struct {
		name, in, want string
	}{
		{"anthropic", "key " + key("sk-ant-", "api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_xyzAA") + " end",
			"key [REDACTED:anthropic-key] end"},
		{"openai legacy", key("sk-", "AbCdEfGhIjKlMnOpQrStT3BlbkFJ0123456789abcdefgh"), "[REDACTED:openai-key]"},
		{"openai project", "OPENAI=" + key("sk-proj-", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56_-Qr78"), "OPENAI=[REDACTED:openai-key]"},
		{"github classic", "url https://" + key("ghp_", "0123456789abcdefghijABCDEFGHIJ0123456789") + "@github.com",
			"url https://[REDACTED:github-token]@github.com"},
		{"github oauth", key("gho_", "0123456789abcdefghijABCDEFGHIJ0123456789"), "[REDACTED:github-token]"},
		{"github fine-grained", key("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ012345"), "[REDACTED:github-token]"},
		{"aws access key", "id: " + key("AKIA", "IOSFODNN7EXAMPLE"), "id: [REDACTED:aws-access-key]"},
		{"aws session key", key("ASIA", "Y34FZKBOKMUTVV7A") + ",", "[REDACTED:aws-access-key],"},
		{"slack bot", key("xoxb-", "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"), "[REDACTED:slack-token]"},
		{"slack app", key("xapp-", "1-A0123456789-0123456789012-abcdef0123456789"), "[REDACTED:slack-token]"},
		{"google", key("AIza", "SyA-0123456789abcdefghijklmnopqrstu"), "[REDACTED:google-api-key]"},
		{"stripe", key("sk_live_", "51H0123456789abcdefghijkl"), "[REDACTED:stripe-key]"},
		{"hugging face", key("hf_", "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"), "[REDACTED:huggingface-token]"},
		{"npm", key("npm_", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"), "[REDACTED:npm-token]"},
		{"jwt", "token " + key("eyJ", "hbGciOiJIUzI1NiJ9.", "eyJ", "zdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
			"token [REDACTED:jwt]"},
		{"pem block", "a\n-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEow\nIBAAK\n-----END RSA " + "PRIVATE KEY-----\nb",
			"a\n[REDACTED:private-key]\nb"},
		{"pkcs8 pem block", "-----BEGIN " + "PRIVATE KEY-----\nMIIEvQ==\n-----END " + "PRIVATE KEY-----", "[REDACTED:private-key]"},
		{"pem cut before END", "$ head -c 60 id_ed25519\n-----BEGIN OPENSSH " + "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nBG5vbmU",
			"$ head -c 60 id_ed25519\n[REDACTED:private-key]"},
		{"bearer", "token is Bearer abcDEF0123456789ghiJKL.mn-op_qr", "token is Bearer [REDACTED:bearer-token]"},
		{"authorization bearer", "Authorization: Bearer abcDEF0123456789ghiJKL.mn-op_qr", "Authorization: Bearer [REDACTED:authorization]"},
		{"basic auth", `-H "authorization: Basic dXNlcjpwYXNzd29yZA=="`, `-H "authorization: Basic [REDACTED:authorization]"`},
		{"url password", "postgres://app:s3cret@db:5432/app", "postgres://app:[REDACTED:url-password]@db:5432/app"},
		{"assignment", "DB_PASSWORD=Tr0ub4dor3x", "DB_PASSWORD=[REDACTED:secret-assignment]"},
		{"quoted assignment", `"client_secret": "a1b2c3d4e5f6"`, `"client_secret": "[REDACTED:secret-assignment]"`},
		{"go assignment", `apiKey := "Zq9xV2mK8pL4"`, `apiKey := "[REDACTED:secret-assignment]"`},
		{"yaml assignment", "  password: correct-horse-9", "  password: [REDACTED:secret-assignment]"},
		{"qualified key", "x-api-key: 9f8e7d6c5b4a", "x-api-key: [REDACTED:secret-assignment]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// Ordinary text that looks a little like a secret stays as it is.
func TestRedactNoFalsePositives(t *testing.T) {
	r := history.NewRedactor([]string{"EDITOR=vim", "TOKEN_LIMIT=4096"}, nil)
	for _, s := range []string{
		"commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
		"--- PASS: TestParse/case_000 (0.00s)",
		"DB_PASS=hunter2hunter2 is only found by value",
		"auth: TestAuthFlow_v2",
		"sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"request 123e4567-e89b-12d3-a456-426614174000 failed",
		"the task-runner-configuration-file is missing",
		"pip install scikit-learn; use sk-learn-style-estimators-everywhere",
		"max_tokens: 4096000000",
		"tokenizer: cl100k_base_encoding",
		"token = next_token(lexer)",
		"password = cfg.Password",
		"api_key = os.Getenv(\"API_KEY\")",
		"secret: ${{ secrets.DEPLOY_KEY }}",
		"password: required",
		"password: ********",
		"cache_key = user_12345678",
		"monkey: banana12345",
		"use a bearer token for authentication_scheme_description",
		"Authorization: required",
		"http://localhost:8080/path@v2",
		"ASIAPACIFICREGION1",
		"if token == \"abc12345678\" {",
		"ghp_short",
		"eyJhbGciOiJIUzI1NiJ9 alone is only a header",
		"open vim and edit",
		"AKIAIOSFODNNXEXAMPLEX",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

func TestRedactKnownValues(t *testing.T) {
	env := []string{
		"GITHUB_TOKEN=valueWith0dd-shape",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
		"MY_SERVICE_PASSWD=p4ss<&>word",
		"stripeApiKey=camelCaseValue99",
		"API_KEY=short",             // too short
		"SECRET_MODE=disabled",      // a plain word
		"SSH_AUTH_SOCK=/tmp/ssh/ag", // a path
		"SESSION_KEY=xxxxxxxxxxxx",  // one character repeated
		"HOME=/home/ana",
		"EDITOR=vimvimvimvim123", // not a secret name
		"KEYBOARD=us-intl-altgr",
		"MONKEY=banana-split-77",
		"NOEQUALS",
	}
	r := history.NewRedactor(env, map[string]string{"deploy": "deploy-7f3a9c2e-live", "tiny": "abc"})
	wantNames := []string{"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "MY_SERVICE_PASSWD", "deploy", "stripeApiKey"}
	if got := r.Names(); !slices.Equal(got, wantNames) {
		t.Errorf("Names = %v, want %v", got, wantNames)
	}
	tests := []struct{ in, want string }{
		{"x valueWith0dd-shape y", "x [REDACTED:GITHUB_TOKEN] y"},
		{"glued:valueWith0dd-shapevalueWith0dd-shape", "glued:[REDACTED:GITHUB_TOKEN][REDACTED:GITHUB_TOKEN]"},
		{"secret wJalrXUtnFEMI/K7MDENG.", "secret [REDACTED:AWS_SECRET_ACCESS_KEY]."},
		{"raw p4ss<&>word", "raw [REDACTED:MY_SERVICE_PASSWD]"},
		{`json "p4ss\u003c\u0026\u003eword"`, `json "[REDACTED:MY_SERVICE_PASSWD]"`},
		{`json "p4ss<&>word"`, `json "[REDACTED:MY_SERVICE_PASSWD]"`},
		{"camelCaseValue99", "[REDACTED:stripeApiKey]"},
		{"release deploy-7f3a9c2e-live now", "release [REDACTED:deploy] now"},
		{"short disabled /tmp/ssh/ag xxxxxxxxxxxx abc vimvimvimvim123 us-intl-altgr banana-split-77",
			"short disabled /tmp/ssh/ag xxxxxxxxxxxx abc vimvimvimvim123 us-intl-altgr banana-split-77"},
	}
	for _, tt := range tests {
		if got := r.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// A value that contains another is hidden whole, and overlapping finds
// merge into one marker, so no piece of either is left.
func TestRedactOverlaps(t *testing.T) {
	r := history.NewRedactor([]string{"A_TOKEN=abcdefgh1234", "B_TOKEN=abcdefgh1234XYZW"}, nil)
	if got, want := r.Redact("v=abcdefgh1234XYZW;"), "v=[REDACTED:B_TOKEN];"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A known value inside a key block: one marker for the block.
	r = history.NewRedactor([]string{"X_KEY=MIIEowIBAAK"}, nil)
	in := "-----BEGIN RSA " + "PRIVATE KEY-----\nMIIEowIBAAK\n-----END RSA " + "PRIVATE KEY-----"
	if got := r.Redact(in); got != "[REDACTED:X_KEY]" && got != "[REDACTED:private-key]" {
		t.Errorf("got %q, want one marker", got)
	}
}

func TestRedactNilAndClean(t *testing.T) {
	var nilR *history.Redactor
	if got := nilR.Redact("sk-ant-" + strings.Repeat("a", 30)); !strings.HasPrefix(got, "sk-ant-") {
		t.Errorf("a nil Redactor redacted: %q", got)
	}
	if nilR.Names() != nil {
		t.Error("a nil Redactor has names")
	}
	r := history.NewRedactor([]string{"GITHUB_TOKEN=valueWith0dd-shape"}, nil)
	text := strings.Repeat("An ordinary line of output: ok, key = value, x := y, https://example.com/a.\n", 20)
	if allocs := testing.AllocsPerRun(100, func() { _ = r.Redact(text) }); allocs != 0 {
		t.Errorf("Redact of clean text allocates %v times, want 0", allocs)
	}
}

func TestMinSecretLength(t *testing.T) {
	short := strings.Repeat("a1", history.MinSecretLength/2-1) + "b"
	long := strings.Repeat("a1", history.MinSecretLength/2)
	r := history.NewRedactor([]string{"A_TOKEN=" + short, "B_TOKEN=" + long}, nil)
	if got := r.Names(); !slices.Equal(got, []string{"B_TOKEN"}) {
		t.Errorf("Names = %v: a %d-byte value must be skipped, a %d-byte one kept", got, len(short), len(long))
	}
}

// Runs of hints (a file of key headers, a wall of "sk-") cost linear
// time: each would otherwise send an expression through the rest of the
// run. Quadratic cost took over a second for 300 KB of "sk-"; linear
// takes milliseconds, so the bound below is generous.
// pathologicalUnits are inputs that would make a naive pattern scan
// quadratic: many starts of a key shape that never complete.
var pathologicalUnits = []string{
	"sk-", "sk-a ", "ghp_", "AKIA", "eyJaaaaaaaaaa.", "Bearer ", "Authorization: ",
	"-----BEGIN RSA " + "PRIVATE KEY-----\n", "password: \"", "x_token=", "a://b:", "abcdefgh123",
}

// TestRedactPathologicalInput checks that such inputs come out whole (they
// hold no secret); BenchmarkRedactPathological measures that the scan stays
// linear (docs/benchmarks.md).
func TestRedactPathologicalInput(t *testing.T) {
	r := history.NewRedactor([]string{"A_TOKEN=abcdefgh1234"}, nil)
	for _, unit := range pathologicalUnits {
		s := strings.Repeat(unit, (64<<10)/len(unit))
		if got := r.Redact(s); strings.Contains(got, "abcdefgh1234") || len(got) == 0 {
			t.Errorf("Redact of 64 KB of %q gave %d bytes", unit, len(got))
		}
	}
}

func BenchmarkRedactPathological(b *testing.B) {
	r := history.NewRedactor([]string{"A_TOKEN=abcdefgh1234"}, nil)
	for _, unit := range pathologicalUnits {
		for _, size := range []int{64 << 10, 1 << 20} {
			s := strings.Repeat(unit, size/len(unit))
			b.Run(fmt.Sprintf("%q/%dKB", unit, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					r.Redact(s)
				}
			})
		}
	}
}

// The shapes of secrets found in files a workspace holds (.env, configs,
// netrc-like headers), each hidden whatever its variable is called.
func TestRedactFileShapes(t *testing.T) {
	r := history.NewRedactor(nil, nil)
	tests := []struct{ name, in, want string }{
		{"env password", "PASSWORD=hunter2xyz", "PASSWORD=[REDACTED:secret-assignment]"},
		{"joined password", "PGPASSWORD=pg-s3cret-99", "PGPASSWORD=[REDACTED:secret-assignment]"},
		{"joined token", "export GHTOKEN=abc123def456", "export GHTOKEN=[REDACTED:secret-assignment]"},
		{"yaml api key", "api_key: 9f8e7d6c5b4a3210", "api_key: [REDACTED:secret-assignment]"},
		{"aws secret", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			"aws_secret_access_key = [REDACTED:secret-assignment]"},
		{"aws id in ini", "aws_access_key_id = " + key("AKIA", "Z7X2Q9W4E6R8T0Y1"), "aws_access_key_id = [REDACTED:aws-access-key]"},
		{"header", "Authorization: Bearer abcDEF0123456789ghiJKL", "Authorization: Bearer [REDACTED:authorization]"},
		{"stripe webhook", "STRIPE_WH=" + key("whsec_", "AbCdEfGhIjKlMnOpQrStUvWxYz012345"), "STRIPE_WH=[REDACTED:stripe-webhook-secret]"},
		{"gitlab", "token " + key("glpat-", "AbCdEfGhIjKlMnOpQrSt"), "token [REDACTED:gitlab-token]"},
		{"sendgrid", key("SG.", "AbCdEfGhIjKlMnOpQrStUv", ".", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ABCDEFG"), "[REDACTED:sendgrid-key]"},
		{"google oauth", "secret " + key("GOCSPX-", "AbCdEfGhIjKlMnOpQrStUvWxYz01"), "secret [REDACTED:google-oauth-secret]"},
		{"digitalocean", key("dop_v1_", strings.Repeat("0123456789abcdef", 4)), "[REDACTED:digitalocean-token]"},
		{"slack webhook", "curl https://" + key("hooks.slack.com/services/", "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
			"curl https://hooks.slack.com/services/[REDACTED:slack-webhook]"},
		{"private key in json", `{"key": "-----BEGIN ` + `PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END ` + `PRIVATE KEY-----\n"}`,
			`{"key": "[REDACTED:private-key]\n"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
	// Run-together names mark an environment variable's value too; the
	// shell's own PWD is a path, never hidden.
	r = history.NewRedactor([]string{"PGPASSWORD=pg-env-value-1", "MYSQL_PWD=my-env-value-2", "PWD=/home/ana/src"}, nil)
	if got, want := r.Names(), []string{"MYSQL_PWD", "PGPASSWORD"}; !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	// Words that only look like them stay.
	for _, s := range []string{"the task is spoken for: yes-really-1", "sendgrid SG.short", "glpat-short", "whsec_short"} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

// Redacting text that was already redacted changes nothing: a message
// passes the Redactor again on its way to a model.
func TestRedactIdempotent(t *testing.T) {
	r := history.NewRedactor([]string{"DEPLOY_TOKEN=deploy-7f3a9c2e-live"}, nil)
	for _, s := range []string{
		`{"password": "Tr0ub4dor3x", "token": "deploy-7f3a9c2e-live"}`,
		"DB_PASSWORD=Tr0ub4dor3x and " + key("ghp_", "0123456789abcdefghijABCDEFGHIJ0123456789"),
		"postgres://app:s3cret@db/app Authorization: Bearer abcDEF0123456789ghiJKL",
		`client_secret: "a1b2c3d4e5f6" api_key="[REDACTED:OPENAI_API_KEY]"`,
	} {
		once := r.Redact(s)
		if twice := r.Redact(once); twice != once {
			t.Errorf("Redact twice changed %q\n once %q\ntwice %q", s, once, twice)
		}
	}
}

func TestRedactMessage(t *testing.T) {
	ghp := key("ghp_", "0123456789abcdefghijABCDEFGHIJ0123456789")
	r := history.NewRedactor([]string{"DEPLOY_TOKEN=deploy-7f3a9c2e-live"}, nil)
	img := llm.Image("image/png", "aGVsbG8gZGVwbG95LTdmM2E5YzJlLWxpdmU=")
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Text("the token is deploy-7f3a9c2e-live"),
		llm.Thinking("I saw "+ghp+" in .env", "sig-abc"),
		llm.Thinking("nothing secret here", "sig-def"),
		llm.ToolCall("c1", "bash", json.RawMessage(`{"command":"curl -H 'Authorization: Bearer abcDEF0123456789ghiJKL' x"}`)),
		// An escaped quote inside a secret-looking value: redacting the raw
		// text would cut the escape; the result must still be JSON.
		llm.ToolCall("c2", "write", json.RawMessage(`{"path":"a","password":"Tr0ub\"4dor3x"}`)),
		llm.ToolResult("c0", false, llm.Text("GITHUB="+ghp), img),
	}}
	before, _ := json.Marshal(m)
	got := r.RedactMessage(m)
	if after, _ := json.Marshal(m); string(after) != string(before) {
		t.Fatal("RedactMessage wrote to its argument")
	}
	out, _ := json.Marshal(got)
	for _, secret := range []string{"deploy-7f3a9c2e-live", ghp, "abcDEF0123456789ghiJKL", "Tr0ub"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("%q left in %s", secret, out)
		}
	}
	for i, c := range got.Content {
		if c.Type == llm.BlockToolCall && !json.Valid(c.Arguments) {
			t.Errorf("block %d: arguments %s are not JSON", i, c.Arguments)
		}
	}
	if th := got.Content[1]; th.Signature != "" || !strings.Contains(th.Text, "[REDACTED:github-token]") {
		t.Errorf("redacted thinking = %+v, want it redacted and unsigned", th)
	}
	if th := got.Content[2]; th.Signature != "sig-def" {
		t.Errorf("clean thinking lost its signature: %+v", th)
	}
	if !history.DroppedSignature(m, got) {
		t.Error("DroppedSignature = false, want true")
	}
	if gotImg := got.Content[5].Content[1]; gotImg.Data != img.Data || gotImg.Type != llm.BlockImage {
		t.Errorf("image changed: %+v", gotImg)
	}

	clean := llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("all fine"), llm.ToolResult("c", false, llm.Text("ok"))}}
	if got := r.RedactMessage(clean); &got.Content[0] != &clean.Content[0] {
		t.Error("a clean message was copied")
	}
	if history.DroppedSignature(clean, r.RedactMessage(clean)) {
		t.Error("DroppedSignature of a clean message")
	}
	var nilR *history.Redactor
	if got := nilR.RedactMessage(m); got.Content[0].Text != m.Content[0].Text {
		t.Error("a nil Redactor redacted")
	}
}

// FuzzRedactMessage: tool-call arguments that were JSON stay JSON, the
// seeded secret never survives in them, and redacting again changes
// nothing.
func FuzzRedactMessage(f *testing.F) {
	secret := "deploy-7f3a9c2e-live"
	for _, s := range []string{
		`{"command":"echo deploy-7f3a9c2e-live"}`,
		`{"password":"Tr0ub\"4dor3x","n":1.50}`,
		`{"a":["x","PASSWORD=hunter2xyz"],"b":{"api_key":"9f8e7d6c5b4a"}}`,
		`{"k":"-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----"}`,
		`not json at all deploy-7f3a9c2e-live`,
		`00deploy-7f3a9c2e-live0`, // a JSON value, then more: not JSON
	} {
		f.Add(s)
	}
	r := history.NewRedactor([]string{"DEPLOY_TOKEN=" + secret}, nil)
	f.Fuzz(func(t *testing.T, args string) {
		m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolCall("c", "bash", json.RawMessage(args))}}
		out := r.RedactMessage(m)
		got := out.Content[0].Arguments
		if json.Valid([]byte(args)) && !json.Valid(got) {
			t.Fatalf("arguments %s became %s, not JSON", args, got)
		}
		if strings.Contains(string(got), secret) {
			t.Fatalf("arguments %s keep the secret: %s", args, got)
		}
		if again := r.RedactMessage(out).Content[0].Arguments; string(again) != string(got) {
			t.Fatalf("redacting twice: %s then %s", got, again)
		}
	})
}
