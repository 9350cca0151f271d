package models

import (
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/llm/openai"
)

// Open builds the model: the adapter for its API, pointed at its provider
// with its key, wrapped in the registry's retry policy. It fails, saying
// why, when the model cannot be used (a missing key, an unsupported API).
func (m *Resolved) Open() (llm.Model, error) {
	if why := m.registry.problem(m.provider, m.model); why != "" {
		return nil, fmt.Errorf("model %s: %s", m.Info.Ref(), why)
	}
	key, err := m.registry.key(m.provider)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", m.Info.Ref(), err)
	}
	headers := mergeHeaders(m.provider.headers, m.model.headers)
	if m.provider.authHeader && key != "" {
		headers["Authorization"] = "Bearer " + key
	}
	var model llm.Model
	switch m.Info.API {
	case llm.APIAnthropicMessages:
		model, err = anthropic.New(anthropic.Config{
			BaseURL:      m.provider.baseURL,
			APIKey:       key,
			Model:        m.Info.ID,
			MaxOutput:    m.Info.MaxOutput,
			Thinking:     m.Thinking,
			ThinkingMap:  m.Info.ThinkingMap,
			HTTPClient:   m.registry.opts.HTTPClient,
			Headers:      headers,
			ProviderName: m.provider.name,
		})
	case llm.APIOpenAICompletions, llm.APIOpenAIResponses:
		model, err = openai.New(openai.Config{
			API:          m.Info.API,
			BaseURL:      m.provider.baseURL,
			APIKey:       key,
			Model:        m.Info.ID,
			MaxOutput:    m.Info.MaxOutput,
			Thinking:     m.Thinking,
			Reasoning:    m.Info.Reasoning,
			ThinkingMap:  m.Info.ThinkingMap,
			HTTPClient:   m.registry.opts.HTTPClient,
			Headers:      headers,
			ProviderName: m.provider.name,
		})
	default:
		err = errors.New("unsupported api " + string(m.Info.API))
	}
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w", m.Info.Ref(), err)
	}
	return llm.WithRetry(model, m.registry.opts.Retry), nil
}
