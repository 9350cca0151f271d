package lazyre

import (
	"sync"
	"testing"
)

func TestGetCompilesOnce(t *testing.T) {
	re := &Regexp{Expr: `^a+b$`}
	var wg sync.WaitGroup
	got := make([]bool, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = re.Get().MatchString("aaab")
		}()
	}
	wg.Wait()
	for i, ok := range got {
		if !ok {
			t.Fatalf("goroutine %d: no match", i)
		}
	}
	first := re.Get()
	if again := re.Get(); again != first {
		t.Fatal("compiled twice")
	}
}

func TestBadExpressionPanicsAtFirstUse(t *testing.T) {
	re := &Regexp{Expr: `(`}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	re.Get()
}
