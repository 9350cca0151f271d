package main

import (
	"fmt"
	"go/types"
	"reflect"
	"slices"
	"strings"
)

// A struct's fields: their JSON names and the fast tag's options.

// fieldOpts are what a field's fast tag or hint says.
type fieldOpts struct {
	recent, copy, text bool
	of                 []string
	into, fn           string
}

// only returns an error naming the first of the options recent, of=,
// copy and text that o has and ok does not list, for a value of type t.
func (o fieldOpts) only(t string, ok ...string) error {
	for _, opt := range []struct {
		name string
		set  bool
	}{{"recent", o.recent}, {"of", len(o.of) > 0}, {"copy", o.copy}, {"text", o.text}} {
		if opt.set && !slices.Contains(ok, opt.name) {
			return fmt.Errorf("the fast option %s does not apply to a %s", opt.name, t)
		}
	}
	return nil
}

func parseOpts(s string) (fieldOpts, error) {
	var o fieldOpts
	for opt := range strings.SplitSeq(s, ",") {
		k, v, _ := strings.Cut(opt, "=")
		switch k {
		case "":
		case "recent":
			o.recent = true
		case "copy":
			o.copy = true
		case "text":
			o.text = true
		case "of":
			o.of = strings.Split(v, "|")
		case "into":
			o.into = v
		case "func":
			o.fn = v
		default:
			return o, fmt.Errorf("unknown fast option %q", k)
		}
	}
	return o, nil
}

// member is one JSON member of a struct.
type member struct {
	name   string // the JSON name
	target string // the Go expression it is decoded into
	typ    types.Type
	opts   fieldOpts
}

// collect lists the members of struct st, held at expr, as encoding/json
// names them, following embedded structs.
func (g *gen) collect(expr, hintPrefix string, st *types.Struct, into *[]member) error {
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i))
		jtag, hasTag := tag.Lookup("json")
		name, rest, _ := strings.Cut(jtag, ",")
		if jtag == "-" {
			continue // but "-," names a member "-"
		}
		if strings.Contains(","+rest+",", ",string,") {
			return fmt.Errorf("field %s: the string option is not supported", f.Name())
		}
		if f.Embedded() && (!hasTag || name == "") {
			if s, ok := f.Type().Underlying().(*types.Struct); ok {
				if _, isPtr := f.Type().(*types.Pointer); !isPtr {
					if err := g.collect(expr+"."+f.Name(), hintPrefix, s, into); err != nil {
						return err
					}
					continue
				}
			}
			return fmt.Errorf("embedded field %s: only embedded structs are supported", f.Name())
		}
		if !f.Exported() {
			continue
		}
		if name == "" {
			name = f.Name()
		}
		optSrc, ok := tag.Lookup("fast")
		if !ok {
			optSrc = g.hints[hintPrefix+"."+f.Name()]
			g.hinted[hintPrefix+"."+f.Name()] = true
		}
		opts, err := parseOpts(optSrc)
		if err != nil {
			return fmt.Errorf("field %s: %w", f.Name(), err)
		}
		if opts.into != "" {
			if err := g.checkInto(st, f, opts.into); err != nil {
				return fmt.Errorf("field %s: %w", f.Name(), err)
			}
		}
		for _, m := range *into {
			if m.name == name {
				return fmt.Errorf("two fields named %q", name)
			}
		}
		*into = append(*into, member{name: name, target: expr + "." + f.Name(), typ: f.Type(), opts: opts})
	}
	return nil
}

// checkInto checks that into names a field of st that f, a pointer to a
// struct, can point to.
func (g *gen) checkInto(st *types.Struct, f *types.Var, into string) error {
	name := func(t types.Type) string { return types.TypeString(t, types.RelativeTo(g.pkg.Types)) }
	p, ok := f.Type().(*types.Pointer)
	if !ok {
		return fmt.Errorf("into=%s: %s is not a pointer", into, name(f.Type()))
	}
	if _, ok := p.Elem().Underlying().(*types.Struct); !ok {
		return fmt.Errorf("into=%s: %s is not a pointer to a struct", into, name(f.Type()))
	}
	for i := range st.NumFields() {
		if b := st.Field(i); b.Name() == into {
			if !types.Identical(b.Type(), p.Elem()) {
				return fmt.Errorf("into=%s: the field is a %s, not a %s", into, name(b.Type()), name(p.Elem()))
			}
			return nil
		}
	}
	return fmt.Errorf("into=%s: no such field beside it", into)
}
