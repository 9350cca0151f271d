package config

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// checkKeys rejects mapping keys that are not names (10, true, [a]): the
// decoder skips those silently, even in strict mode, and with them the
// rest of their mapping.
func checkKeys(name string, f *ast.File) error {
	var c keyChecker
	for _, doc := range f.Docs {
		ast.Walk(&c, doc.Body)
	}
	if c.bad == nil {
		return nil
	}
	e := &yamlfile.Error{File: name, Msg: fmt.Sprintf("key %s is not a name; quote it if it is meant as one", c.bad.GetToken().Value)}
	if pos := c.bad.GetToken().Position; pos != nil {
		e.Line, e.Column = pos.Line, pos.Column
	}
	return e
}

// keyChecker finds the first mapping key that is neither a name nor a
// merge key (<<).
type keyChecker struct{ bad ast.Node }

func (c *keyChecker) Visit(n ast.Node) ast.Visitor {
	if c.bad != nil {
		return nil
	}
	if mv, ok := n.(*ast.MappingValueNode); ok {
		switch mv.Key.(type) {
		case *ast.StringNode, *ast.MergeKeyNode:
		default:
			c.bad = mv.Key
			return nil
		}
	}
	return c
}
