package anthropic

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/vigil-dev/vigil/llm"
)

// defaultMaxOutput is max_tokens when neither the request nor the config
// sets one.
const defaultMaxOutput = 8192

// defaultProviderName names the adapter in errors unless the config does.
const defaultProviderName = "anthropic"

// Config says how to reach one Anthropic model.
type Config struct {
	// BaseURL is the API's address without /v1; "" means the SDK's default,
	// https://api.anthropic.com.
	BaseURL string
	// APIKey is sent as the request's credential; "" sends none, for proxies
	// that add their own.
	APIKey string
	// Model is the provider's model id, such as claude-sonnet-4-5.
	Model string
	// MaxOutput is max_tokens when a request sets none, and the room left
	// for the answer above a thinking budget; 0 means 8192.
	MaxOutput int
	// Thinking is the thinking level of requests that set none.
	Thinking llm.ThinkingLevel
	// ThinkingMap says what each level becomes: its style is budget (the
	// default) or adaptive.
	ThinkingMap llm.ThinkingMap
	// HTTPClient sends the requests; nil means http.DefaultClient. It should
	// have no overall timeout, which would cut long streams: cancel the
	// context instead.
	HTTPClient *http.Client
	// Headers are added to every request.
	Headers map[string]string
	// ProviderName names the provider in errors; "" means "anthropic".
	ProviderName string
}

// Model is an [llm.Model] served by the Anthropic Messages API. It is safe
// for concurrent use.
type Model struct {
	client      sdk.Client
	model       string
	provider    string
	maxOutput   int64
	thinking    llm.ThinkingLevel
	thinkingMap llm.ThinkingMap
}

var _ llm.Model = (*Model)(nil)

// New returns the model cfg describes. It checks the config but makes no
// request.
func New(cfg Config) (*Model, error) {
	if cfg.Model == "" {
		return nil, fmt.Errorf("anthropic: config has no model id")
	}
	if cfg.MaxOutput < 0 {
		return nil, fmt.Errorf("anthropic: negative MaxOutput %d", cfg.MaxOutput)
	}
	if cfg.Thinking != "" {
		if _, err := llm.ParseThinkingLevel(string(cfg.Thinking)); err != nil {
			return nil, fmt.Errorf("anthropic: %w", err)
		}
	}
	tm := cfg.ThinkingMap.WithDefaultStyle(llm.ThinkingBudget)
	if tm.Style != llm.ThinkingBudget && tm.Style != llm.ThinkingAdaptive {
		return nil, fmt.Errorf("anthropic: thinking style %q: the Messages API takes budget or adaptive", tm.Style)
	}
	if err := tm.Validate(); err != nil {
		return nil, fmt.Errorf("anthropic: %w", err)
	}
	opts := []option.RequestOption{
		// The environment must not supply a key, base URL or headers: the
		// config is the only source.
		option.WithoutEnvironmentDefaults(),
		// llm.WithRetry retries, knowing whether events were already seen.
		option.WithMaxRetries(0),
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("anthropic: base URL %q is not an http(s) URL", cfg.BaseURL)
		}
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	client := cfg.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	opts = append(opts, option.WithHTTPClient(client))
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// Sorted, so that two spellings of one header apply in a stable order.
	for _, k := range slices.Sorted(maps.Keys(cfg.Headers)) {
		opts = append(opts, option.WithHeader(k, cfg.Headers[k]))
	}

	m := &Model{
		client:      sdk.NewClient(opts...),
		model:       cfg.Model,
		provider:    cfg.ProviderName,
		maxOutput:   int64(cfg.MaxOutput),
		thinking:    cfg.Thinking,
		thinkingMap: tm,
	}
	if m.provider == "" {
		m.provider = defaultProviderName
	}
	if m.maxOutput == 0 {
		m.maxOutput = defaultMaxOutput
	}
	return m, nil
}

// Stream sends req and returns the reply as it streams in. See [llm.Model]
// for the guarantees; the package doc says how the request is built and
// how failures map to error kinds.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		params, err := m.newParams(req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		// resp is set once the server answered, which tells a failure to
		// connect from a reply that broke off.
		var resp *http.Response
		reqCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		stream := m.client.Messages.NewStreaming(reqCtx, params, option.WithResponseInto(&resp))
		// Closing the body releases the connection, also when the caller
		// breaks out of the loop.
		defer stream.Close()

		var tr translator
		for stream.Next() {
			if ctx.Err() != nil {
				break
			}
			ev := stream.Current()
			events, done, err := tr.translate(&ev)
			if err != nil {
				yield(llm.Event{}, m.truncated(err))
				return
			}
			if done {
				drain(stream, cancel)
			}
			for _, e := range events {
				if !yield(e, nil) {
					return
				}
			}
			if done {
				return
			}
		}
		// A reply the caller cancelled was still paid for: report what
		// message_start and message_delta said, before the error.
		if ctx.Err() != nil && tr.started && tr.usage != (llm.Usage{}) {
			if !yield(llm.Event{Type: llm.EventUsage, Usage: tr.usage}, nil) {
				return
			}
		}
		yield(llm.Event{}, m.streamError(ctx, stream.Err(), resp))
	}
}

// drainTimeout bounds the wait for the end of the body after message_stop.
const drainTimeout = 250 * time.Millisecond

// drain reads what is left of a complete reply, normally just the end of the
// body, so that the connection goes back to the pool instead of being
// closed: a new TLS handshake per call costs more than the wait. A server
// that keeps the body open past drainTimeout has its request cancelled.
func drain(stream *ssestream.Stream[sdk.MessageStreamEventUnion], cancel context.CancelFunc) {
	t := time.AfterFunc(drainTimeout, cancel)
	defer t.Stop()
	for stream.Next() {
	}
}
