package models_test

import (
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

func TestLoadFileHostile(t *testing.T) {
	hostiletest.Run(t, func(t *testing.T) string { return filepath.Join(t.TempDir(), "models.yml") }, func(path string) error {
		_, err := models.LoadFile(path)
		return err
	})
}
