package advisor

import "testing"

func TestPromptRoom(t *testing.T) {
	for _, tt := range []struct {
		tokens int64
		window int
		ok     bool
	}{
		{1000, 200000, true},
		{8000, 8000, false},
		{2999, 8000, true}, // threshold 6000, half of it 3000
		{3000, 8000, false},
		{1 << 40, 0, true},
	} {
		if ok, _ := PromptRoom(tt.tokens, tt.window); ok != tt.ok {
			t.Errorf("PromptRoom(%d, %d) = %v, want %v", tt.tokens, tt.window, ok, tt.ok)
		}
	}
}
