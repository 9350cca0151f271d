package fakellm

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	ooption "github.com/openai/openai-go/v3/option"
)

// serveStep starts a server whose only rule repeats one step, written as a
// YAML flow mapping or block.
func serveStep(t *testing.T, stepYAML string) *Server {
	t.Helper()
	indented := "      " + strings.ReplaceAll(strings.TrimSpace(stepYAML), "\n", "\n      ")
	return StartTest(t, MustParse(t, "rules:\n  - repeat: true\n    steps:\n    - \n"+indented+"\n"))
}

// anthropicClient is the official Anthropic client, pointed at s, with no
// retries and no environment.
func anthropicClient(s *Server, opts ...aoption.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]aoption.RequestOption{
		aoption.WithoutEnvironmentDefaults(),
		aoption.WithBaseURL(s.URL()),
		aoption.WithAPIKey("sk-ant-test-key"),
		aoption.WithMaxRetries(0),
	}, opts...)...)
}

// openaiClient is the official OpenAI client, pointed at s, with no
// retries.
func openaiClient(s *Server, opts ...ooption.RequestOption) openai.Client {
	return openai.NewClient(append([]ooption.RequestOption{
		ooption.WithBaseURL(s.URL() + "/v1"),
		ooption.WithAPIKey("sk-test-key"),
		ooption.WithMaxRetries(0),
	}, opts...)...)
}

// post sends a raw JSON request and returns the status and body.
func post(t *testing.T, s *Server, path, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func get(t *testing.T, s *Server, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		t.Fatalf("read %s: %v", req.URL.Path, err)
	}
	return resp.StatusCode, buf.String()
}

// modes runs f for a non-streaming and a streaming request.
func modes(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		name := "json"
		if stream {
			name = "sse"
		}
		t.Run(name, func(t *testing.T) { f(t, stream) })
	}
}

// gotCall is a tool call as a client saw it.
type gotCall struct {
	ID, Name, Args string
}
