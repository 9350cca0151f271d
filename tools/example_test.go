package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/vigil-dev/vigil/tools"
)

// An agent loop hands each tool call of the model to Invoke and sends the
// result back as it is.
func Example() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		log.Fatal(err)
	}

	s, err := tools.NewSession(tools.Options{Roots: []string{dir}})
	if err != nil {
		log.Fatal(err)
	}
	set := s.Tools()
	ctx := context.Background()

	calls := []tools.Call{
		{ID: "1", Name: "read", Arguments: json.RawMessage(`{"path":"greet.txt"}`)},
		{ID: "2", Name: "edit", Arguments: json.RawMessage(`{"path":"greet.txt","old_text":"world","new_text":"vigil"}`)},
		{ID: "3", Name: "read", Arguments: json.RawMessage(`{"path":"greet.txt","offset":"2"}`)},
	}
	for _, c := range calls {
		res := tools.Invoke(ctx, set, c)
		fmt.Printf("%s error=%v\n%s\n", c.Name, res.IsError, strings.TrimSpace(res.Text()))
	}
	// Output:
	// read error=false
	// 1	hello
	// 2	world
	// edit error=false
	// Edited greet.txt: replaced 1 occurrence at line 2
	// read error=true
	// read: argument "offset" must be an integer, got string "2"
}

// The advisor gets only tools that cannot change the workspace.
func ExampleNewReadOnly() {
	set, err := tools.NewReadOnly(tools.Options{Cwd: os.TempDir()})
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range tools.Definitions(set) {
		fmt.Println(d.Name)
	}
	// Output:
	// read
	// search
	// find
}
