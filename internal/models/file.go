package models

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/vigil-dev/vigil/internal/yamlfile"
	"github.com/vigil-dev/vigil/llm"
)

// File is the shape of models.yml, the same as omp's, so an omp user can
// point vigil at their existing file. Keys vigil accepts but does not use
// yet (discovery, compat, input) are kept so such a
// file loads.
type File struct {
	Providers map[string]*ProviderConfig `yaml:"providers"`
}

// ProviderConfig is one provider in models.yml. A provider with models
// defines (or extends) a provider; one without models only overrides an
// existing provider's settings.
type ProviderConfig struct {
	BaseURL string  `yaml:"baseUrl"`
	API     llm.API `yaml:"api"`
	// APIKey names an environment variable holding the key, or is the key
	// itself; see [Registry] for how it is read.
	APIKey     string            `yaml:"apiKey"`
	Auth       string            `yaml:"auth"` // "apiKey" (the default) or "none"
	AuthHeader bool              `yaml:"authHeader"`
	Headers    map[string]string `yaml:"headers"`
	Discovery  map[string]any    `yaml:"discovery"`
	// ModelOverrides change fields of models already defined, by id.
	ModelOverrides map[string]ModelOverride `yaml:"modelOverrides"`
	Models         []ModelConfig            `yaml:"models"`
}

// ModelConfig is one model in models.yml.
type ModelConfig struct {
	ID                     string            `yaml:"id"`
	Name                   string            `yaml:"name"`
	API                    llm.API           `yaml:"api"`
	Reasoning              bool              `yaml:"reasoning"`
	Input                  []string          `yaml:"input"`
	Cost                   *llm.Price        `yaml:"cost"`
	ContextWindow          int               `yaml:"contextWindow"`
	MaxTokens              int               `yaml:"maxTokens"`
	Headers                map[string]string `yaml:"headers"`
	Compat                 map[string]any    `yaml:"compat"`
	ContextPromotionTarget string            `yaml:"contextPromotionTarget"`
	// Thinking says what each thinking level becomes in the model's
	// requests (see docs/config.md); it is vigil's own key.
	Thinking llm.ThinkingMap `yaml:"thinking"`
	// Default marks the provider's model vigil runs when no model is
	// configured and this provider is the first whose key is set (vigil's
	// own key).
	Default bool `yaml:"default"`
}

// ModelOverride changes the fields it sets on an existing model.
type ModelOverride struct {
	Name                   *string           `yaml:"name"`
	Reasoning              *bool             `yaml:"reasoning"`
	Input                  []string          `yaml:"input"`
	Cost                   *llm.Price        `yaml:"cost"`
	ContextWindow          *int              `yaml:"contextWindow"`
	MaxTokens              *int              `yaml:"maxTokens"`
	Headers                map[string]string `yaml:"headers"`
	Compat                 map[string]any    `yaml:"compat"`
	ContextPromotionTarget *string           `yaml:"contextPromotionTarget"`
}

// supportedAPIs are the wire APIs vigil has adapters for.
var supportedAPIs = []llm.API{llm.APIAnthropicMessages, llm.APIOpenAICompletions, llm.APIOpenAIResponses}

// knownAPIs are the APIs omp's models.yml accepts; vigil loads providers
// using the others but reports their models as unusable.
var knownAPIs = append(slices.Clone(supportedAPIs), "openai-codex-responses", "azure-openai-responses", "google-generative-ai", "google-vertex")

// ParseFile decodes and validates models.yml. name is used in errors, which
// name the file, line and key.
func ParseFile(name string, data []byte) (*File, error) {
	var f File
	if err := yamlfile.Decode(name, data, &f); err != nil {
		return nil, err
	}
	if err := f.validate(name, data); err != nil {
		return nil, err
	}
	return &f, nil
}

// LoadFile reads and parses models.yml at path. A missing file is not an
// error: it returns (nil, nil). One that is not a regular file or passes
// the limits of [yamlfile.Parse] (1 MiB, nesting, alias expansion) is.
func LoadFile(path string) (*File, error) {
	data, err := yamlfile.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read models file: %w", err)
	}
	return ParseFile(path, data)
}

func (f *File) validate(name string, data []byte) error {
	for _, pname := range sortedKeys(f.Providers) {
		p := f.Providers[pname]
		at := "$.providers." + yamlfile.Quote(pname)
		if p == nil {
			return yamlfile.At(name, data, at, "provider has no settings")
		}
		if p.API != "" && !slices.Contains(knownAPIs, p.API) {
			return yamlfile.At(name, data, at+".api", "unknown api %q (vigil speaks %v)", p.API, supportedAPIs)
		}
		if p.Auth != "" && p.Auth != "apiKey" && p.Auth != "none" {
			return yamlfile.At(name, data, at+".auth", "auth is %q, want apiKey or none", p.Auth)
		}
		for i, m := range p.Models {
			mat := fmt.Sprintf("%s.models[%d]", at, i)
			if m.ID == "" {
				return yamlfile.At(name, data, mat, "model has no id")
			}
			if m.API != "" && !slices.Contains(knownAPIs, m.API) {
				return yamlfile.At(name, data, mat+".api", "unknown api %q (vigil speaks %v)", m.API, supportedAPIs)
			}
			if m.ContextWindow < 0 {
				return yamlfile.At(name, data, mat+".contextWindow", "must be positive, got %d", m.ContextWindow)
			}
			if m.MaxTokens < 0 {
				return yamlfile.At(name, data, mat+".maxTokens", "must be positive, got %d", m.MaxTokens)
			}
			if err := validateThinking(name, data, mat+".thinking", cmp.Or(m.API, p.API), m.Thinking); err != nil {
				return err
			}
			if m.Cost != nil && (m.Cost.Input < 0 || m.Cost.Output < 0 || m.Cost.CacheRead < 0 || m.Cost.CacheWrite < 0) {
				return yamlfile.At(name, data, mat+".cost", "prices must not be negative")
			}
			for j := range i {
				if p.Models[j].ID == m.ID {
					return yamlfile.At(name, data, mat+".id", "model %q is listed twice", m.ID)
				}
			}
		}
		for id, o := range p.ModelOverrides {
			oat := at + ".modelOverrides." + yamlfile.Quote(id)
			if o.ContextWindow != nil && *o.ContextWindow <= 0 {
				return yamlfile.At(name, data, oat+".contextWindow", "must be positive, got %d", *o.ContextWindow)
			}
			if o.MaxTokens != nil && *o.MaxTokens <= 0 {
				return yamlfile.At(name, data, oat+".maxTokens", "must be positive, got %d", *o.MaxTokens)
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
