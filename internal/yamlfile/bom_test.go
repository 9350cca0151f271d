package yamlfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// A file saved with a UTF-8 byte-order mark (as some Windows editors do)
// reads as the same file without it: the mark is not part of the first
// key.
func TestByteOrderMarkIsStripped(t *testing.T) {
	type settings struct {
		Advisor struct {
			Enabled bool `yaml:"enabled"`
		} `yaml:"advisor"`
	}
	data := []byte("\uFEFFadvisor:\n  enabled: true\n")
	var s settings
	if err := yamlfile.Decode("config.yml", data, &s); err != nil {
		t.Fatalf("decode with a BOM: %v", err)
	}
	if !s.Advisor.Enabled {
		t.Error("advisor.enabled not read through the BOM")
	}
	f, err := yamlfile.Parse("config.yml", data)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := f.Docs[0].Body.(*ast.MappingNode); !ok || m.Values[0].Key.GetToken().Value != "advisor" {
		t.Errorf("parsed %v, want the key advisor first", f.Docs[0].Body)
	}
	path := filepath.Join(t.TempDir(), "config.yml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	read, err := yamlfile.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(string(read), "\uFEFF") {
		t.Error("ReadFile kept the BOM, so the edits that locate keys by byte offset would be off")
	}
}

// A file saved as UTF-16 gets an error that says so and what to do,
// whether or not it starts with a byte-order mark.
func TestUTF16IsNamed(t *testing.T) {
	utf16le := func(s string, bom bool) []byte {
		var b []byte
		if bom {
			b = append(b, 0xFF, 0xFE)
		}
		for _, c := range s {
			b = append(b, byte(c), 0)
		}
		return b
	}
	utf16be := func(s string) []byte {
		b := []byte{0xFE, 0xFF}
		for _, c := range s {
			b = append(b, 0, byte(c))
		}
		return b
	}
	for name, data := range map[string][]byte{
		"LE with BOM":    utf16le("advisor:\n  enabled: true\n", true),
		"BE with BOM":    utf16be("advisor:\n  enabled: true\n"),
		"LE without BOM": utf16le("advisor:\n  enabled: true\n", false),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := yamlfile.Parse("WATCHDOG.yml", data)
			if err == nil || !strings.HasPrefix(err.Error(), "WATCHDOG.yml") || !strings.Contains(err.Error(), "UTF-16") || !strings.Contains(err.Error(), "UTF-8") {
				t.Errorf("err = %v, want one naming the file and saying it is UTF-16, not UTF-8", err)
			}
		})
	}
}
