package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// Set writes one setting into the settings file at path and keeps the rest
// of the file as it was: other keys, their order, comments, blank lines and
// quoting. /advisor on is
//
//	config.Set(config.UserFile(agentDir), "advisor.enabled", true)
//
// key is dotted as in docs/config.md (advisor.immuneTurns,
// modelRoles.advisor) and must name one setting. value is a bool, an
// integer or a string, as the setting takes. Missing mappings on the way are
// created, and so are the file and its folder. The file must load, before
// and after, or nothing is written. A symbolic link at path is followed, so
// a settings file kept elsewhere stays linked. The write is atomic (a
// temporary file renamed over the old one); two processes setting keys at
// once may lose one of the changes.
func Set(path, key string, value any) error {
	segs := strings.Split(key, ".")
	t := leafType(segs)
	if t == nil {
		return fmt.Errorf("set %s: no such setting", key)
	}
	text, err := scalarText(value, t)
	if err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	target := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		target = real
	}
	// Read through the link, so that errors name the file the user gave.
	data, err := yamlfile.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("set %s: %w", key, err)
	}
	exists := err == nil
	if exists {
		if _, err := Parse(path, data); err != nil {
			return fmt.Errorf("set %s: fix the file first: %w", key, err)
		}
	}
	out, err := setKey(data, segs, text)
	if err != nil {
		return fmt.Errorf("set %s in %s: %w", key, path, err)
	}
	if _, err := Parse(path, out); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	if exists && bytes.Equal(out, data) {
		return nil
	}
	if err := writeFile(target, out); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	return nil
}

// scalarText returns value written as a YAML scalar for a setting of type t.
func scalarText(value any, t reflect.Type) (string, error) {
	v := reflect.ValueOf(value)
	if !v.IsValid() {
		return "", fmt.Errorf("no value")
	}
	switch t.Kind() {
	case reflect.Bool:
		if v.Kind() == reflect.Bool {
			return strconv.FormatBool(v.Bool()), nil
		}
		return "", fmt.Errorf("want true or false, got %v (%T)", value, value)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		switch {
		case v.CanInt():
			return strconv.FormatInt(v.Int(), 10), nil
		case v.CanUint():
			return strconv.FormatUint(v.Uint(), 10), nil
		}
		return "", fmt.Errorf("want a whole number, got %v (%T)", value, value)
	case reflect.String:
		switch {
		case v.Kind() == reflect.String:
			return yamlString(v.String()), nil
		case v.CanInt():
			return strconv.Quote(strconv.FormatInt(v.Int(), 10)), nil
		}
		return "", fmt.Errorf("want a string, got %v (%T)", value, value)
	}
	return "", fmt.Errorf("settings of type %s cannot be set", t)
}

// yamlString returns s as a YAML scalar: bare when it reads back as the
// same string, else double-quoted.
func yamlString(s string) string {
	if s != "" && strings.TrimSpace(s) == s && !strings.ContainsAny(s, "\n\r\t") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte("v: "+s), &m); err == nil && len(m) == 1 && m["v"] == s {
			return s
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// writeFile replaces the file at path with data through a temporary file
// in the same folder, keeping the old file's permissions.
func writeFile(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, ".config-*.tmp")
	if err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write settings %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write settings %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write settings %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write settings %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	return nil
}
