package config_test

import (
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

// A cloned repository's .vigil/config.yml is read by every vigil command
// and hook started in it; none of the hostile files may stall or exhaust
// it.
func TestLoadHostileProjectFile(t *testing.T) {
	hostiletest.Run(t, func(t *testing.T) string { return config.ProjectFile(t.TempDir()) }, func(path string) error {
		_, err := config.Load(config.Options{ProjectDir: filepath.Dir(filepath.Dir(path))})
		return err
	})
}

func TestLoadHostileUserFile(t *testing.T) {
	hostiletest.Run(t, func(t *testing.T) string { return config.UserFile(t.TempDir()) }, func(path string) error {
		_, err := config.Load(config.Options{AgentDir: filepath.Dir(path)})
		return err
	})
}

// Set reads the file it edits first.
func TestSetHostileFile(t *testing.T) {
	hostiletest.Run(t, func(t *testing.T) string { return config.UserFile(t.TempDir()) }, func(path string) error {
		return config.Set(path, "advisor.enabled", true)
	})
}
