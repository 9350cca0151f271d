package yamlfile_test

import (
	"testing"

	"github.com/vigil-dev/vigil/internal/yamlfile"
	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

// settingsDoc stands for a settings file's shape: the hostile cases put
// their bombs under advisor and providers.
type settingsDoc struct {
	Advisor   map[string]any `yaml:"advisor"`
	Providers map[string]any `yaml:"providers"`
	X         any            `yaml:"x"`
}

func TestHostileFiles(t *testing.T) {
	hostiletest.Run(t, func(t *testing.T) string { return t.TempDir() + "/config.yml" }, func(path string) error {
		data, err := yamlfile.ReadFile(path)
		if err != nil {
			return err
		}
		var v settingsDoc
		return yamlfile.Decode(path, data, &v)
	})
}
