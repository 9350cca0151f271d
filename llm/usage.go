package llm

// Usage counts the tokens of one reply. Input counts only uncached prompt
// tokens: adapters subtract cache reads and writes from providers (such as
// OpenAI) whose prompt count includes them, so the four fields never
// overlap and their sum is the whole bill.
type Usage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read,omitempty"`
	CacheWrite int64 `json:"cache_write,omitempty"`
}

// PromptTokens returns every prompt token, cached or not: the size of the
// context the model saw.
func (u Usage) PromptTokens() int64 { return u.Input + u.CacheRead + u.CacheWrite }

// Total returns every token of the reply, prompt and output.
func (u Usage) Total() int64 { return u.PromptTokens() + u.Output }

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		Input:      u.Input + v.Input,
		Output:     u.Output + v.Output,
		CacheRead:  u.CacheRead + v.CacheRead,
		CacheWrite: u.CacheWrite + v.CacheWrite,
	}
}

// Price is what a model costs, in US dollars per million tokens of each
// kind.
type Price struct {
	Input      float64 `json:"input" yaml:"input"`
	Output     float64 `json:"output" yaml:"output"`
	CacheRead  float64 `json:"cacheRead" yaml:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite" yaml:"cacheWrite"`
}

// Cost returns what the usage costs at this price, in US dollars.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input +
		float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead +
		float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// EstimateTokens estimates the tokens of a text at four bytes a token,
// rounded up. Provider-reported usage corrects it where available.
func EstimateTokens(s string) int64 { return (int64(len(s)) + 3) / 4 }
