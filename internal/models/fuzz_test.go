package models_test

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

func FuzzParseFile(f *testing.F) {
	f.Add([]byte("providers:\n  x:\n    baseUrl: http://a\n    api: openai-completions\n    auth: none\n    models: [{id: m, contextWindow: 10}]\n"))
	f.Add([]byte(`{"providers": {"a": {"modelOverrides": {"m": {"maxTokens": 5}}}}}`))
	f.Add([]byte("providers:\n  'a.b':\n    models:\n      - id: x\n      - id: x\n"))
	f.Add([]byte("providers: [\n"))
	// Bombs cut to a size the fuzzer can grow past the limits.
	f.Add([]byte("providers:\n  x:\n    compat: " + strings.Repeat("{a: ", 70) + "\n"))
	f.Add([]byte("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nproviders:\n  x:\n    discovery: {c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]}\n"))
	f.Add([]byte("providers:\n  x:\n    models:\n      - id: m\n        contextWindow: big\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var file *models.File
		var err error
		hostiletest.Bounded(t, func() { file, err = models.ParseFile("models.yml", data) })
		if err != nil {
			if !strings.HasPrefix(err.Error(), "models.yml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Whatever parses must build a registry and list it without panicking.
		r := models.New(models.Options{User: file})
		for _, e := range r.Entries() {
			if _, err := r.Resolve(e.Info.Ref().String()); err != nil && e.Info.ID != "" {
				// Ids that are not valid references (empty after trimming) may fail; others must resolve.
				if _, perr := r.Resolve(e.Info.Provider + "/" + e.Info.ID); perr == nil {
					t.Fatalf("entry %s lists but does not resolve: %v", e.Info.Ref(), err)
				}
			}
		}
	})
}
