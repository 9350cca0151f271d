package openai

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/vigil-dev/vigil/llm"
)

// DefaultBaseURL is where requests go when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config says which server, model and wire API a [Model] talks to. Nothing is
// read from the environment: OPENAI_API_KEY, OPENAI_BASE_URL and the other
// variables the SDK knows are ignored.
type Config struct {
	// API is llm.APIOpenAICompletions (the default when empty) or
	// llm.APIOpenAIResponses.
	API llm.API
	// BaseURL is the full base including /v1, such as
	// "http://127.0.0.1:11434/v1"; empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends no Authorization header,
	// as local servers expect.
	APIKey string
	// Model is the model id the server knows.
	Model string
	// MaxOutput caps the reply when Request.MaxTokens is 0; 0 sends no limit.
	MaxOutput int
	// Thinking is the level used when Request.Thinking is "".
	Thinking llm.ThinkingLevel
	// Reasoning says the model accepts a reasoning effort. When false no
	// effort is sent, whatever the thinking level.
	Reasoning bool
	// ThinkingMap says which effort each level sends; its style must be
	// effort (or empty, which sends the level's own name).
	ThinkingMap llm.ThinkingMap
	// HTTPClient makes the requests; nil means a client of this package's
	// own, with no overall timeout (replies stream for minutes).
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers map[string]string
	// ProviderName names the provider in errors; empty means "openai".
	ProviderName string
}

// Model is an [llm.Model] over an OpenAI-style API. It is safe for
// concurrent use: each Stream call is independent.
type Model struct {
	cfg       Config
	chat      openai.ChatCompletionService
	responses responses.ResponseService
}

var _ llm.Model = (*Model)(nil)

// New returns a Model for cfg. It fails on an unknown API or an empty model
// id; it does not contact the server.
func New(cfg Config) (*Model, error) {
	switch cfg.API {
	case "":
		cfg.API = llm.APIOpenAICompletions
	case llm.APIOpenAICompletions, llm.APIOpenAIResponses:
	default:
		return nil, fmt.Errorf("openai: unsupported API %q (want %q or %q)", cfg.API, llm.APIOpenAICompletions, llm.APIOpenAIResponses)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("openai: no model id")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.ProviderName == "" {
		cfg.ProviderName = "openai"
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient()
	}
	if cfg.MaxOutput < 0 {
		return nil, fmt.Errorf("openai: negative MaxOutput %d", cfg.MaxOutput)
	}
	if cfg.Thinking != "" {
		if _, err := llm.ParseThinkingLevel(string(cfg.Thinking)); err != nil {
			return nil, fmt.Errorf("openai: %w", err)
		}
	}
	cfg.ThinkingMap = cfg.ThinkingMap.WithDefaultStyle(llm.ThinkingEffort)
	if cfg.ThinkingMap.Style != llm.ThinkingEffort {
		return nil, fmt.Errorf("openai: thinking style %q: OpenAI APIs take a reasoning effort (style effort)", cfg.ThinkingMap.Style)
	}
	if err := cfg.ThinkingMap.Validate(); err != nil {
		return nil, fmt.Errorf("openai: %w", err)
	}
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimRight(cfg.BaseURL, "/") + "/"),
		option.WithHTTPClient(cfg.HTTPClient),
		// Retrying is llm.WithRetry's job, around the adapter.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	for k, v := range cfg.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	// The services are built directly rather than through openai.NewClient,
	// whose defaults read OPENAI_* variables from the environment.
	m := &Model{cfg: cfg}
	switch cfg.API {
	case llm.APIOpenAIResponses:
		m.responses = responses.NewResponseService(opts...)
	default:
		m.chat = openai.NewChatCompletionService(opts...)
	}
	return m, nil
}

// defaultHTTPClient is a client with the default transport's dialling and
// TLS timeouts but no overall deadline, which would cut long replies.
func defaultHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		return &http.Client{Transport: t.Clone()}
	}
	return &http.Client{Transport: http.DefaultTransport}
}

// Stream sends req and returns the reply as it arrives, honouring the
// [llm.Model] contract: events numbered by block, one usage event, then a
// stop event; or an error, once and last.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		if m.cfg.API == llm.APIOpenAIResponses {
			m.streamResponses(ctx, req, yield)
			return
		}
		m.streamChat(ctx, req, yield)
	}
}

// maxTokens is the output limit to send, or 0 for none.
func (m *Model) maxTokens(req llm.Request) int64 {
	if req.MaxTokens > 0 {
		return int64(req.MaxTokens)
	}
	return int64(m.cfg.MaxOutput)
}

// thinking is the level req asks for, falling back to the configured one.
func (m *Model) thinking(req llm.Request) llm.ThinkingLevel {
	if req.Thinking != "" {
		return req.Thinking
	}
	return m.cfg.Thinking
}
