package attach

import (
	"strings"
	"testing"
)

func TestParsePrintsBackEveryByte(t *testing.T) {
	for _, in := range []string{
		userSettings,
		"\n\t { \"a\" :\t[ 1 , 2 ,3 ] ,\"b\":{ } , \"c\" : [ ] }\r\n\n",
		`{"s":"\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00","n":[-0,0.5,1e9,-2.5E-3,1E+2],"l":[true,false,null]}`,
		`{"é": {"日本": ["ü"]}}`,
		"{}", "[]", `"x"`, "0",
		strings.Repeat("[", 500) + strings.Repeat("]", 500),
	} {
		doc, err := parseDocument("x.json", []byte(in))
		if err != nil {
			t.Errorf("parse %q: %v", in, err)
			continue
		}
		if got := string(doc.bytes()); got != in {
			t.Errorf("printed\n%q\nwant\n%q", got, in)
		}
	}
}

func TestParseRefusesDeepNesting(t *testing.T) {
	in := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, err := parseDocument("x.json", []byte(in)); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("error %v", err)
	}
}
