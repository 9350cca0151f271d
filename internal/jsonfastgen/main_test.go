package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedIsCurrent regenerates every file a go:generate line in
// transcript makes and compares it with the one checked in, so that a
// field added to a struct without go generate fails here.
func TestGeneratedIsCurrent(t *testing.T) {
	dir := filepath.Join("..", "..", "transcript")
	lines := generateLines(t, dir)
	if len(lines) == 0 {
		t.Fatal("no go:generate line for jsonfastgen in transcript")
	}
	for _, args := range lines {
		out, roots, hints := parseArgs(t, args)
		got, err := generate(dir, out, roots, hints)
		if err != nil {
			t.Fatalf("generating %s: %v", out, err)
		}
		want, err := os.ReadFile(filepath.Join(dir, out))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("transcript/%s is not what jsonfastgen makes of the structs: run go generate ./transcript/", out)
		}
	}
}

// generateLines returns the arguments of each go:generate line in dir
// that runs jsonfastgen.
func generateLines(t *testing.T, dir string) [][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			rest, ok := strings.CutPrefix(sc.Text(), "//go:generate go run ../internal/jsonfastgen ")
			if ok {
				out = append(out, strings.Fields(rest))
			}
		}
		f.Close()
	}
	return out
}

func parseArgs(t *testing.T, args []string) (out string, roots, hints []string) {
	t.Helper()
	out = "jsonfast_gen.go"
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-o":
			i++
			out = args[i]
		case "-hint":
			i++
			hints = append(hints, args[i])
		default:
			roots = append(roots, args[i])
		}
	}
	return out, roots, hints
}

// TestRefuses checks that each shape the fast path cannot decode as
// encoding/json does is refused with an error that names it.
func TestRefuses(t *testing.T) {
	dir := filepath.Join("testdata", "bad")
	for _, c := range []struct{ root, want string }{
		{"withMap", "map[string]string is not supported"},
		{"withBytes", "[]byte is base64"},
		{"withSelfDecoding", "implements json.Unmarshaler but has no decodeFast method"},
		{"withStringOption", "the string option is not supported"},
		{"twoNamed", `two fields named "x"`},
		{"badOption", `unknown fast option "sometimes"`},
		{"withAny", "is not supported"},
		{"missing", "no such type"},
		{"withTextUnmarshaler", "textLevel implements encoding.TextUnmarshaler"},
		{"withSelfDecodingPointer", "selfDecoding implements json.Unmarshaler but has no decodeFast method"},
		{"withIntoList", "into=buf: []*inner is not a pointer"},
		{"withIntoMissing", "into=buf: no such field"},
		{"withIntoOfAnotherType", "into=buf: the field is a fine, not a inner"},
		{"withRecentNumber", "recent does not apply to a int"},
		{"withCopiedString", "copy does not apply to a string"},
		{"withNumber", "json.Number"},
		{"aliasOfFine", "not an alias"},
		{"withSameNames", "Same and same would both be read by fastSame"},
	} {
		_, err := generate(dir, "gen.go", []string{c.root}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.root, err, c.want)
		}
	}
	if _, err := generate(dir, "gen.go", []string{"fine"}, []string{"nohint"}); err == nil || !strings.Contains(err.Error(), "want pkg.Type.Field=option") {
		t.Errorf("a bad -hint: error %v", err)
	}
	if _, err := generate(dir, "gen.go", []string{"fine"}, []string{"bad.fine.Rwa=copy"}); err == nil || !strings.Contains(err.Error(), "no field of the structs decoded is bad.fine.Rwa") {
		t.Errorf("a -hint that misses: error %v", err)
	}
	src, err := generate(dir, "gen.go", []string{"fine"}, nil)
	if err != nil {
		t.Fatalf("fine: %v", err)
	}
	if !strings.Contains(string(src), "func (v *fine) decodeFast(d *jdec)") || !strings.Contains(string(src), "v.Raw = d.raw()") {
		t.Errorf("fine: generated\n%s", src)
	}
	// A pointer to a struct that decodes itself is read by its hook; "-,"
	// names a member "-"; into= points at the buffer beside it.
	src, err = generate(dir, "gen.go", []string{"fineToo"}, nil)
	if err != nil {
		t.Fatalf("fineToo: %v", err)
	}
	for _, want := range []string{"x1.decodeFast(d)", `case "-":`, "v.P = &v.buf"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("fineToo: no %s in\n%s", want, src)
		}
	}
	if strings.Contains(string(src), `"Gone"`) {
		t.Errorf("fineToo: a member for json:\"-\" in\n%s", src)
	}
}
