package llm_test

import (
	"math"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

func TestPriceCost(t *testing.T) {
	p := llm.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	u := llm.Usage{Input: 1_000_000, Output: 100_000, CacheRead: 2_000_000, CacheWrite: 400_000}
	want := 3 + 1.5 + 0.6 + 1.5
	if got := p.Cost(u); math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
}

func TestUsageSums(t *testing.T) {
	u := llm.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4}
	if u.PromptTokens() != 8 || u.Total() != 10 {
		t.Errorf("PromptTokens %d Total %d", u.PromptTokens(), u.Total())
	}
	if got := u.Add(u); got != (llm.Usage{Input: 2, Output: 4, CacheRead: 6, CacheWrite: 8}) {
		t.Errorf("Add = %+v", got)
	}
}

func TestEstimateTokens(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int64
	}{{"", 0}, {"a", 1}, {"abcd", 1}, {"abcde", 2}} {
		if got := llm.EstimateTokens(tt.s); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}
