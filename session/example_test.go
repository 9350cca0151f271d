package session_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func Example() {
	root, _ := os.MkdirTemp("", "sessions")
	defer os.RemoveAll(root)
	m := session.NewManager(filepath.Join(root, "sessions"), session.Options{})
	s, err := m.New("/home/ana/src/vigil")
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	cursor := s.Len() // an advisor starts reading here
	s.Append(&session.Message{Message: llm.UserText("add a --json flag")})
	reply, _ := s.Append(&session.Message{
		Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Done.")}},
		Model:      llm.Ref{Provider: "anthropic", Model: "claude-sonnet-5-5"},
		StopReason: llm.StopEndTurn,
	})
	s.Append(&session.Custom{CustomType: "advisor", Content: []llm.Block{llm.Text("run the tests")}, Display: true, InContext: true})
	s.Append(&session.Compaction{Summary: "The user asked for a --json flag.", FirstKeptID: reply.ID, TokensBefore: 42000})

	delta, cursor := s.Since(cursor)
	fmt.Println("new entries:", len(delta), "cursor:", cursor)

	path, _ := s.Path(s.Leaf())
	for _, e := range path {
		fmt.Println(e.Type(), e.ModelSees())
	}
	// Output:
	// new entries: 4 cursor: 4
	// compaction true
	// message true
	// custom_message true
}
