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
