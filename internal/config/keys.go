package config

import (
	"reflect"
	"strings"
)

// leafType returns the Go type of the single setting a dotted key names
// (such as advisor.enabled or modelRoles.advisor), or nil when it names
// none: an unknown key, or a group of settings.
func leafType(path []string) reflect.Type {
	t := reflect.TypeFor[Settings]()
	for _, seg := range path {
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByKey(t, seg)
			if !ok {
				return nil
			}
			t = f.Type
		case reflect.Map:
			if seg == "" {
				return nil
			}
			t = t.Elem()
		default:
			return nil
		}
	}
	if t.Kind() == reflect.Struct || t.Kind() == reflect.Map {
		return nil
	}
	return t
}

// keys returns every settings key, dotted, in the struct's order; a map is
// one key.
func keys() []string {
	var out []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			key := prefix + yamlKey(f)
			if f.Type.Kind() == reflect.Struct {
				walk(key+".", f.Type)
				continue
			}
			out = append(out, key)
		}
	}
	walk("", reflect.TypeFor[Settings]())
	return out
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); yamlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func yamlKey(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}
