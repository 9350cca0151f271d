package yamlfile_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/yamlfile"
	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

type doc struct {
	Providers map[string]struct {
		API    string `yaml:"api"`
		Models []struct {
			ID string `yaml:"id"`
		} `yaml:"models"`
	} `yaml:"providers"`
}

func TestDecodeNamesFileLineAndKey(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"unknown key", "providers:\n  local:\n    api: x\n    bseUrl: y\n", "models.yml:4:"},
		{"wrong type", "providers:\n  local:\n    models: 3\n", "models.yml:3:"},
		{"syntax", "providers:\n  local: [\n", "models.yml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := yamlfile.Decode("models.yml", []byte(tt.data), &d)
			var e *yamlfile.Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v (%T), want *yamlfile.Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err = %q, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestDecodeUnknownKeyNamesIt(t *testing.T) {
	var d doc
	err := yamlfile.Decode("m.yml", []byte("providers:\n  local:\n    bseUrl: y\n"), &d)
	if err == nil || !strings.Contains(err.Error(), "bseUrl") {
		t.Errorf("err = %v, want it to name bseUrl", err)
	}
}

func TestDecodeJSON(t *testing.T) {
	var d doc
	if err := yamlfile.Decode("m.json", []byte(`{"providers": {"a": {"api": "x", "models": [{"id": "m"}]}}}`), &d); err != nil {
		t.Fatal(err)
	}
	if d.Providers["a"].Models[0].ID != "m" {
		t.Errorf("decoded %+v", d)
	}
}

func TestAt(t *testing.T) {
	data := []byte("providers:\n  my.local:\n    api: bogus\n")
	e := yamlfile.At("models.yml", data, "$.providers."+yamlfile.Quote("my.local")+".api", "unknown api %q", "bogus")
	if got, want := e.Error(), `models.yml:3:10: providers.'my.local'.api: unknown api "bogus"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if e := yamlfile.At("f", data, "$.nope", "x"); e.Line != 0 {
		t.Errorf("missing path located at line %d", e.Line)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("providers:\n  local:\n    api: x\n    models: [{id: m}]\n"))
	f.Add([]byte("providers: !x [\n"))
	f.Add([]byte("providers:\n  a:\n    models: !!str\n"))
	// Bombs cut to a size the fuzzer can grow past the limits.
	f.Add([]byte("providers: " + strings.Repeat("[", 70) + "\n"))
	f.Add([]byte(laughs(3)))
	f.Add([]byte("m: &m {k: v}\nn: &n {<<: [*m, *m, *m]}\nproviders: {<<: [*n, *n, *n]}\n"))
	f.Add([]byte(keys(yamlfile.MaxKeys)))
	f.Add([]byte("providers:\n  - - - - - x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var err error
		hostiletest.Bounded(t, func() {
			var d doc
			err = yamlfile.Decode("f.yml", data, &d)
		})
		if err != nil {
			var e *yamlfile.Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "f.yml") {
				t.Fatalf("error %v (%T) does not name the file", err, err)
			}
		}
		// What was accepted is within the limits, so decoding it into
		// anything, the costliest target, stays bounded too.
		if _, perr := yamlfile.Parse("f.yml", data); perr == nil {
			hostiletest.Bounded(t, func() {
				var v any
				_ = yamlfile.Decode("f.yml", data, &v)
			})
		}
	})
}
