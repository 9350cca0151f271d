package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/constant"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
)

// The code that decodes one value, by its Go type.

// hook reports whether t has a hand-written decodeFast method (outside
// the generated file).
func (g *gen) hook(t types.Type) bool {
	ms := types.NewMethodSet(types.NewPointer(t))
	sel := ms.Lookup(g.pkg.Types, "decodeFast")
	if sel == nil {
		return false
	}
	pos := g.pkg.Fset.Position(sel.Obj().Pos())
	abs, _ := filepath.Abs(pos.Filename)
	return abs != g.out
}

var (
	rawMessage    = "encoding/json.RawMessage"
	jsonNumber    = "encoding/json.Number"
	textUnmarshal = types.NewInterfaceType([]*types.Func{types.NewFunc(0, nil, "UnmarshalText",
		types.NewSignatureType(nil, nil, nil, types.NewTuple(types.NewVar(0, nil, "", types.NewSlice(types.Typ[types.Byte]))),
			types.NewTuple(types.NewVar(0, nil, "", types.Universe.Lookup("error").Type())), false))}, nil).Complete()
	unmarshal = types.NewInterfaceType([]*types.Func{types.NewFunc(0, nil, "UnmarshalJSON",
		types.NewSignatureType(nil, nil, nil, types.NewTuple(types.NewVar(0, nil, "", types.NewSlice(types.Typ[types.Byte]))),
			types.NewTuple(types.NewVar(0, nil, "", types.Universe.Lookup("error").Type())), false))}, nil).Complete()
)

// value writes the code that decodes one value of type t into target.
func (g *gen) value(w *bytes.Buffer, target string, t types.Type, o fieldOpts, ind string) error {
	if g.hook(t) {
		if err := o.only(g.typeName(t)); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s%s.decodeFast(d)\n", ind, target)
		return nil
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path()+"."+n.Obj().Name() == rawMessage {
		if err := o.only("json.RawMessage", "copy"); err != nil {
			return err
		}
		if o.copy {
			g.addImport("bytes")
			fmt.Fprintf(w, "%s%s = bytes.Clone(d.raw())\n", ind, target)
		} else {
			fmt.Fprintf(w, "%s%s = d.raw()\n", ind, target)
		}
		return nil
	}
	if types.Implements(types.NewPointer(t), unmarshal) {
		return fmt.Errorf("%s implements json.Unmarshaler but has no decodeFast method", g.typeName(t))
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path()+"."+n.Obj().Name() == jsonNumber {
		return errors.New("a json.Number takes a number, or a string only when it holds one: not supported")
	}
	if types.Implements(types.NewPointer(t), textUnmarshal) {
		return fmt.Errorf("%s implements encoding.TextUnmarshaler, which encoding/json calls: not supported", g.typeName(t))
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return g.basic(w, target, t, u, o, ind)
	case *types.Pointer:
		elem := u.Elem()
		// A struct that decodes itself is read as any other pointed-to
		// value, below, by its hook (or refused).
		selfDecoding := g.hook(elem) || types.Implements(u, unmarshal) || types.Implements(u, textUnmarshal)
		if st, ok := elem.Underlying().(*types.Struct); ok && !selfDecoding {
			if err := o.only(g.typeName(t)); err != nil {
				return err
			}
			fmt.Fprintf(w, "%sif d.object() {\n", ind)
			if o.into != "" {
				fmt.Fprintf(w, "%s\t%s = &%s\n", ind, target, target[:strings.LastIndex(target, ".")]+"."+o.into)
			} else {
				fmt.Fprintf(w, "%s\t%s = new(%s)\n", ind, target, g.typeName(elem))
			}
			if err := g.structValue(w, target, true, elem, st, ind+"\t"); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s}\n", ind)
			return nil
		}
		g.n++
		x := fmt.Sprintf("x%d", g.n)
		fmt.Fprintf(w, "%sif !d.null() {\n%s\tvar %s %s\n", ind, ind, x, g.typeName(elem))
		if err := g.value(w, x, elem, o, ind+"\t"); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\t%s = &%s\n%s}\n", ind, target, x, ind)
		return nil
	case *types.Struct:
		if err := o.only(g.typeName(t)); err != nil {
			return err
		}
		fmt.Fprintf(w, "%sif d.object() {\n", ind)
		if err := g.structValue(w, target, false, t, u, ind+"\t"); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s}\n", ind)
		return nil
	case *types.Slice:
		if b, ok := u.Elem().(*types.Basic); ok && b.Kind() == types.Byte {
			if !o.text {
				return errors.New("a []byte is base64 to encoding/json: not supported")
			}
			if err := o.only(g.typeName(t), "text"); err != nil {
				return err
			}
			fmt.Fprintf(w, "%s%s = d.strBytes()\n", ind, target)
			return nil
		}
		// The elements gather in a buffer on the stack and are copied
		// to a list of their number: one allocation for a short list,
		// where growing it would take one for each doubling. The buffer
		// is declared at the function's top: one declared in a loop
		// whose address reaches a recursive call (a block's blocks)
		// would be moved to the heap.
		g.n++
		buf, s := fmt.Sprintf("buf%d", g.n), fmt.Sprintf("s%d", g.n)
		elem := g.typeName(u.Elem())
		decl := fmt.Sprintf("var %s [4]%s\n", buf, elem)
		if g.locals != nil {
			fmt.Fprintf(g.locals, "\t%s", decl)
		} else {
			fmt.Fprintf(w, "%s%s", ind, decl)
		}
		fmt.Fprintf(w, "%sif d.array() {\n%s\t%s := %s[:0]\n%s\tfor d.next() {\n%s\t\t%s = append(%s, %s)\n", ind, ind, s, buf, ind, ind, s, s, g.zero(u.Elem()))
		if err := g.value(w, fmt.Sprintf("%s[len(%s)-1]", s, s), u.Elem(), o, ind+"\t\t"); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\t}\n%s\t%s = append(%s{}, %s...)\n%s}\n", ind, ind, target, g.typeName(t), s, ind)
		return nil
	}
	return fmt.Errorf("type %s is not supported", g.typeName(t))
}

// structValue decodes the members of an object just entered into the
// struct target, or the struct it points to: a named struct by its
// function, an anonymous one inline.
func (g *gen) structValue(w *bytes.Buffer, target string, isPtr bool, t types.Type, st *types.Struct, ind string) error {
	if n, ok := t.(*types.Named); ok {
		if !isPtr {
			target = "&" + target
		}
		fmt.Fprintf(w, "%s%s(d, %s)\n", ind, g.structFuncName(n), target)
		return nil
	}
	return g.members(w, target, "", "", st, ind)
}

// upperFirst is s with its first letter upper case.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// basic writes the decoding of a string, bool or number.
func (g *gen) basic(w *bytes.Buffer, target string, t types.Type, b *types.Basic, o fieldOpts, ind string) error {
	var call string
	ok := []string{}
	if b.Kind() == types.String {
		ok = []string{"recent", "of"}
	}
	if err := o.only(g.typeName(t), ok...); err != nil {
		return err
	}
	switch b.Kind() {
	case types.String:
		of := o.of
		if len(of) == 0 {
			of = g.constants(t)
		}
		switch {
		case len(of) > 0:
			quoted := make([]string, len(of))
			for i, s := range of {
				quoted[i] = fmt.Sprintf("%q", s)
			}
			call = "d.strOf(" + strings.Join(quoted, ", ") + ")"
		case o.recent:
			call = "d.strRecent()"
		default:
			call = "d.str()"
		}
	case types.Bool:
		call = "d.boolean()"
	case types.Int64:
		call = "d.int64v()"
	case types.Int:
		call = "int(d.int64v())"
	case types.Float64:
		call = "d.float64v()"
	default:
		return fmt.Errorf("basic type %s is not supported", b)
	}
	if _, named := t.(*types.Named); named {
		call = g.typeName(t) + "(" + call + ")"
	}
	fmt.Fprintf(w, "%s%s = %s\n", ind, target, call)
	return nil
}

// zero is the zero value of t as the generated code writes it.
func (g *gen) zero(t types.Type) string {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		lit := "0"
		switch {
		case u.Info()&types.IsString != 0:
			lit = `""`
		case u.Info()&types.IsBoolean != 0:
			lit = "false"
		}
		if _, named := t.(*types.Named); named {
			return g.typeName(t) + "(" + lit + ")"
		}
		return lit
	case *types.Struct:
		return g.typeName(t) + "{}"
	}
	return "(" + g.typeName(t) + ")(nil)"
}

// constants returns the values of the string constants declared of named
// type t, in its package.
func (g *gen) constants(t types.Type) []string {
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return nil
	}
	scope := n.Obj().Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		if c, ok := scope.Lookup(name).(*types.Const); ok && types.Identical(c.Type(), t) && c.Val().Kind() == constant.String {
			consts = append(consts, c)
		}
	}
	// In the order declared, which puts the usual values first.
	slices.SortFunc(consts, func(a, b *types.Const) int { return int(a.Pos() - b.Pos()) })
	vals := make([]string, len(consts))
	for i, c := range consts {
		vals[i] = constant.StringVal(c.Val())
	}
	return vals
}
