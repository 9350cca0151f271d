// Package bad holds shapes jsonfastgen refuses, for its tests.
package bad

import "encoding/json"

type withMap struct {
	M map[string]string `json:"m"`
}

type withBytes struct {
	B []byte `json:"b"`
}

type selfDecoding struct{}

func (*selfDecoding) UnmarshalJSON([]byte) error { return nil }

type withSelfDecoding struct {
	S selfDecoding `json:"s"`
}

type withStringOption struct {
	N int `json:"n,string"`
}

type twoNamed struct {
	A string `json:"x"`
	B string `json:"x"`
}

type badOption struct {
	A string `json:"a" fast:"sometimes"`
}

type withAny struct {
	V any `json:"v"`
}

type fine struct {
	Raw json.RawMessage `json:"raw"`
}

type textLevel string

func (l *textLevel) UnmarshalText(b []byte) error { *l = textLevel("level " + string(b)); return nil }

type withTextUnmarshaler struct {
	L textLevel `json:"l"`
}

type withSelfDecodingPointer struct {
	S *selfDecoding `json:"s"`
}

type inner struct {
	X string `json:"x"`
}

type withIntoList struct {
	P   []*inner `json:"p" fast:"into=buf"`
	buf inner
}

type withIntoMissing struct {
	P *inner `json:"p" fast:"into=buf"`
}

type withIntoOfAnotherType struct {
	P   *inner `json:"p" fast:"into=buf"`
	buf fine
}

type withRecentNumber struct {
	N int `json:"n" fast:"recent"`
}

type withCopiedString struct {
	S string `json:"s" fast:"copy"`
}

type Same struct{ A string }

type same struct{ B string }

type withSameNames struct {
	X Same `json:"x"`
	Y same `json:"y"`
}

// jdec stands for the fast path's decoder, for hooked's method.
type jdec struct{}

// hooked decodes itself, on the fast path too.
type hooked struct{ Y string }

func (*hooked) UnmarshalJSON([]byte) error { return nil }
func (*hooked) decodeFast(*jdec)           {}

type fineToo struct {
	H    *hooked `json:"h"`
	Dash string  `json:"-,"`
	Gone string  `json:"-"`
	P    *inner  `json:"p" fast:"into=buf"`
	buf  inner
}

type withNumber struct {
	N json.Number `json:"n"`
}

type aliasOfFine = fine
