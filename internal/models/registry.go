package models

import (
	_ "embed"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/llm"
)

//go:embed catalog.yml
var catalogYAML []byte

// Catalog returns the built-in catalog, parsed anew on each call.
func Catalog() *File {
	f, err := ParseFile("catalog.yml", catalogYAML)
	if err != nil {
		panic("models: built-in catalog is invalid: " + err.Error())
	}
	return f
}

// Options configure a [Registry].
type Options struct {
	// User is the parsed models.yml, or nil.
	User *File
	// UserPath names the user's file in listings and errors.
	UserPath string
	// LookupEnv reads the environment; nil reads nothing, so every key
	// named by an environment variable is missing.
	LookupEnv func(string) (string, bool)
	// HTTPClient is given to every adapter; nil uses the adapters' default.
	HTTPClient *http.Client
	// Retry wraps every model; the zero value means llm.DefaultRetryPolicy.
	Retry llm.RetryPolicy
}

// Registry knows every provider and model vigil can use.
type Registry struct {
	opts      Options
	providers []*provider
}

// provider is one provider after merging the catalog and the user's file.
type provider struct {
	name       string
	source     string // "built-in", the user's file, or both
	baseURL    string
	api        llm.API
	apiKey     string
	auth       string
	authHeader bool
	headers    map[string]string
	models     []*model
}

type model struct {
	info llm.ModelInfo
	// api is the model's own api setting; info.API is it, or else its
	// provider's, filled in once every file is merged.
	api     llm.API
	headers map[string]string
	// promoteTo is the model's contextPromotionTarget: where an advisor
	// on it moves first when its context fills (see PromotionTarget).
	promoteTo string
	// isDefault marks the provider's default model (see DefaultModel).
	isDefault bool
}

// New builds a registry from the built-in catalog and opts.User. A user
// provider with the name of a built-in one overrides the settings it sets,
// replaces models with the same id and adds the others.
func New(opts Options) *Registry {
	if opts.LookupEnv == nil {
		opts.LookupEnv = func(string) (string, bool) { return "", false }
	}
	if opts.Retry.MaxAttempts == 0 {
		opts.Retry = llm.DefaultRetryPolicy
	}
	r := &Registry{opts: opts}
	r.merge(Catalog(), "built-in")
	if opts.User != nil {
		src := opts.UserPath
		if src == "" {
			src = "models.yml"
		}
		r.merge(opts.User, src)
	}
	// A model without its own API speaks its provider's, as finally set:
	// a user file that points a built-in provider at another API moves its
	// built-in models too.
	for _, p := range r.providers {
		for _, m := range p.models {
			m.info.API = m.api
			if m.info.API == "" {
				m.info.API = p.api
			}
		}
	}
	return r
}

func (r *Registry) find(name string) *provider {
	for _, p := range r.providers {
		if p.name == name {
			return p
		}
	}
	return nil
}

func (r *Registry) merge(f *File, source string) {
	for _, name := range sortedKeys(f.Providers) {
		pc := f.Providers[name]
		p := r.find(name)
		if p == nil {
			p = &provider{name: name, source: source}
			r.providers = append(r.providers, p)
		} else if p.source != source {
			p.source += " + " + source
		}
		if pc.BaseURL != "" {
			p.baseURL = pc.BaseURL
		}
		if pc.API != "" {
			p.api = pc.API
		}
		if pc.APIKey != "" {
			p.apiKey = pc.APIKey
		}
		if pc.Auth != "" {
			p.auth = pc.Auth
		}
		p.authHeader = p.authHeader || pc.AuthHeader
		if len(pc.Headers) > 0 {
			p.headers = mergeHeaders(p.headers, pc.Headers)
		}
		for _, mc := range pc.Models {
			m := &model{info: llm.ModelInfo{
				Provider:      name,
				ID:            mc.ID,
				Name:          mc.Name,
				Reasoning:     mc.Reasoning,
				ContextWindow: mc.ContextWindow,
				MaxOutput:     mc.MaxTokens,
				ThinkingMap:   mc.Thinking,
			}, api: mc.API, headers: mc.Headers, promoteTo: mc.ContextPromotionTarget, isDefault: mc.Default}
			if mc.Cost != nil {
				m.info.Price = *mc.Cost
			}
			if m.info.Name == "" {
				m.info.Name = mc.ID
			}
			if i := slices.IndexFunc(p.models, func(o *model) bool { return o.info.ID == mc.ID }); i >= 0 {
				p.models[i] = m
			} else {
				p.models = append(p.models, m)
			}
		}
		for _, id := range sortedKeys(pc.ModelOverrides) {
			o := pc.ModelOverrides[id]
			i := slices.IndexFunc(p.models, func(m *model) bool { return m.info.ID == id })
			if i < 0 {
				continue // omp ignores overrides of models it does not know too
			}
			m := p.models[i]
			if o.Name != nil {
				m.info.Name = *o.Name
			}
			if o.Reasoning != nil {
				m.info.Reasoning = *o.Reasoning
			}
			if o.Cost != nil {
				m.info.Price = *o.Cost
			}
			if o.ContextWindow != nil {
				m.info.ContextWindow = *o.ContextWindow
			}
			if o.MaxTokens != nil {
				m.info.MaxOutput = *o.MaxTokens
			}
			if len(o.Headers) > 0 {
				m.headers = mergeHeaders(m.headers, o.Headers)
			}
			if o.ContextPromotionTarget != nil {
				m.promoteTo = *o.ContextPromotionTarget
			}
		}
	}
}

func mergeHeaders(base, over map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, over)
	return out
}

// envName returns the expression that matches values of apiKey that name
// an environment variable, compiled at first use rather than when vigil
// starts.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`) })

// key returns the provider's API key, or why there is none. An apiKey that
// looks like an environment variable name (upper case, digits and
// underscores) is read from the environment; anything else is the key
// itself, as omp reads it.
func (r *Registry) key(p *provider) (string, error) {
	if p.auth == "none" {
		return "", nil
	}
	if p.apiKey == "" {
		return "", fmt.Errorf("provider %s has no apiKey (set one in models.yml, or auth: none)", p.name)
	}
	if v, ok := r.opts.LookupEnv(p.apiKey); ok && v != "" {
		return v, nil
	}
	if envName().MatchString(p.apiKey) {
		return "", fmt.Errorf("missing key: environment variable %s is not set", p.apiKey)
	}
	return p.apiKey, nil
}

// problem says why a model cannot be used, or "" when it can.
func (r *Registry) problem(p *provider, m *model) string {
	if !slices.Contains(supportedAPIs, m.info.API) {
		if m.info.API == "" {
			return "no api set for this model or its provider"
		}
		return fmt.Sprintf("api %s is not supported", m.info.API)
	}
	if p.baseURL == "" {
		return "provider has no baseUrl"
	}
	if _, err := r.key(p); err != nil {
		return err.Error()
	}
	return ""
}

// Entry is one model as `vigil models` lists it.
type Entry struct {
	Info llm.ModelInfo
	// Source says where the model's definition came from.
	Source string
	// Problem says why the model cannot be used; "" when it can.
	Problem string
}

// Entries lists every model, provider by provider in catalog then file
// order, each with the reason it cannot be used, if any.
func (r *Registry) Entries() []Entry {
	var out []Entry
	for _, p := range r.providers {
		for _, m := range p.models {
			out = append(out, Entry{Info: m.info, Source: p.source, Problem: r.problem(p, m)})
		}
	}
	return out
}

// Resolved is a model reference resolved against the registry.
type Resolved struct {
	Info llm.ModelInfo
	// Thinking is the level the reference asked for; "" when it named none.
	// It is off for models that do not reason.
	Thinking llm.ThinkingLevel
	registry *Registry
	provider *provider
	model    *model
}

// Ref returns the canonical reference of the resolved model.
func (m *Resolved) Ref() llm.Ref {
	return llm.Ref{Provider: m.Info.Provider, Model: m.Info.ID, Thinking: m.Thinking}
}

// Resolve finds the model a reference names: provider/model[:thinking], or
// a bare model id that exactly one provider has. Errors say which providers
// and models were looked at.
func (r *Registry) Resolve(s string) (*Resolved, error) {
	ref, err := llm.ParseRef(s)
	if err != nil {
		return nil, err
	}
	var p *provider
	var m *model
	if ref.Provider != "" {
		p = r.find(ref.Provider)
		if p == nil {
			return nil, fmt.Errorf("unknown provider %q in %q: known providers are %s", ref.Provider, s, r.providerList())
		}
		i := slices.IndexFunc(p.models, func(m *model) bool { return m.info.ID == ref.Model })
		if i < 0 {
			return nil, fmt.Errorf("provider %s has no model %q: its models are %s%s", p.name, ref.Model, modelList(p), r.suggest(ref.Model))
		}
		m = p.models[i]
	} else {
		var hits []string
		for _, cp := range r.providers {
			for _, cm := range cp.models {
				if cm.info.ID == ref.Model {
					p, m = cp, cm
					hits = append(hits, cp.name+"/"+cm.info.ID)
				}
			}
		}
		switch len(hits) {
		case 0:
			return nil, fmt.Errorf("no provider has a model %q: looked at %s%s", ref.Model, r.providerList(), r.suggest(ref.Model))
		case 1:
		default:
			return nil, fmt.Errorf("model %q is ambiguous: it is %s; name the provider", ref.Model, strings.Join(hits, " and "))
		}
	}
	res := &Resolved{Info: m.info, Thinking: ref.Thinking, registry: r, provider: p, model: m}
	if !m.info.Reasoning && res.Thinking.Enabled() {
		res.Thinking = llm.ThinkingOff
	}
	return res, nil
}

func (r *Registry) providerList() string {
	var parts []string
	for _, p := range r.providers {
		parts = append(parts, fmt.Sprintf("%s (%d models)", p.name, len(p.models)))
	}
	if len(parts) == 0 {
		return "no providers"
	}
	return strings.Join(parts, ", ")
}

func modelList(p *provider) string {
	if len(p.models) == 0 {
		return "none"
	}
	ids := make([]string, len(p.models))
	for i, m := range p.models {
		ids[i] = m.info.ID
	}
	return strings.Join(ids, ", ")
}

// suggest names models whose id contains the one asked for, or the other
// way round.
func (r *Registry) suggest(id string) string {
	var near []string
	lid := strings.ToLower(id)
	for _, p := range r.providers {
		for _, m := range p.models {
			mid := strings.ToLower(m.info.ID)
			if strings.Contains(mid, lid) || strings.Contains(lid, mid) {
				near = append(near, p.name+"/"+m.info.ID)
			}
		}
	}
	if len(near) == 0 {
		return ""
	}
	if len(near) > 5 {
		near = near[:5]
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// Secrets returns every credential the registry can use, named for
// redaction markers: each provider's API key ("<provider> apiKey"),
// whether written in models.yml or read from the environment. Providers
// without a usable key are left out.
func (r *Registry) Secrets() map[string]string {
	out := map[string]string{}
	for _, p := range r.providers {
		if k, err := r.key(p); err == nil && k != "" {
			out[p.name+" apiKey"] = k
		}
	}
	return out
}
