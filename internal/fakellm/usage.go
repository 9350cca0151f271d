package fakellm

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
)

// promptText builds the canonical prompt of a request: one line per part
// (system, each tool, each message or input item), each part re-encoded
// with sorted keys and without cache_control markers. Requests that extend a
// conversation therefore share a byte prefix, whatever their other options.
type promptText struct {
	strings.Builder
}

// add appends raw as one labelled line, unless it is absent or null.
func (p *promptText) add(label string, raw json.RawMessage) {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return
	}
	p.WriteString(label)
	p.WriteByte(' ')
	p.WriteString(canonicalJSON(raw))
	p.WriteByte('\n')
}

// addEach appends each element of a JSON array as its own line; anything
// else becomes one line.
func (p *promptText) addEach(label string, raw json.RawMessage) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		p.add(label, raw)
		return
	}
	for _, item := range items {
		p.add(label, item)
	}
}

// canonicalJSON re-encodes a JSON value with sorted keys, no insignificant
// space and no "cache_control" keys. Invalid JSON is kept as it is.
func canonicalJSON(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(stripCacheControl(v)); err != nil {
		return string(raw)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func stripCacheControl(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "cache_control")
		for k, e := range v {
			v[k] = stripCacheControl(e)
		}
	case []any:
		for i, e := range v {
			v[i] = stripCacheControl(e)
		}
	}
	return v
}

// Bounds on the prompt history kept for cache simulation.
const (
	historyPerModel  = 32
	historyModels    = 64
	historyMaxPrompt = 4 << 20 // bytes kept of one prompt
)

// promptCache remembers recent prompts to simulate prompt caching: a
// request reads from the cache the longest prefix of whole parts it shares
// with an earlier prompt to the same API and model.
type promptCache struct {
	mu    sync.Mutex
	byKey map[string][]string // by API and model
	keys  []string            // in first-seen order, to evict the oldest
}

// cachedPrefix returns the length of the longest prefix prompt shares with
// an earlier prompt to api and model, then remembers prompt.
func (c *promptCache) cachedPrefix(api, model, prompt string) int {
	key := api + "\x00" + model
	c.mu.Lock()
	defer c.mu.Unlock()
	best := 0
	for _, old := range c.byKey[key] {
		best = max(best, sharedParts(old, prompt))
	}
	if c.byKey == nil {
		c.byKey = map[string][]string{}
	}
	hist, seen := c.byKey[key]
	if !seen {
		if len(c.keys) == historyModels {
			delete(c.byKey, c.keys[0])
			c.keys = c.keys[1:]
		}
		c.keys = append(c.keys, key)
	}
	if len(hist) == historyPerModel {
		hist = hist[1:]
	}
	c.byKey[key] = append(hist, strings.Clone(prompt[:min(len(prompt), historyMaxPrompt)]))
	return best
}

// sharedParts is the length of the longest common prefix of two prompts
// that ends at a part boundary: a cache holds whole blocks, so two
// conversations that differ within their first message share nothing.
func sharedParts(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return i
	}
	return strings.LastIndexByte(a[:i], '\n') + 1
}

// simulateUsage counts the tokens of a reply to wr: the prompt is four
// bytes a token, the part shared with an earlier prompt is read from the
// cache, and with cache_control in the request the rest is written to it.
func simulateUsage(wr *wireRequest, cachedBytes, outputBytes int) Usage {
	total := tokens(len(wr.prompt))
	read := cachedBytes / 4
	if cachedBytes == len(wr.prompt) {
		read = total
	}
	write := 0
	if wr.cacheControl {
		write = total - read
	}
	return Usage{Input: total - read - write, Output: tokens(outputBytes), CacheRead: read, CacheWrite: write}
}
