package fakellm

import "testing"

// StartTest starts a server for script and closes it when t ends. It fails
// t at once if the server cannot start.
func StartTest(t testing.TB, script *Script, opts ...Option) *Server {
	t.Helper()
	s, err := Start(script, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close fakellm: %v", err)
		}
	})
	return s
}

// MustParse parses a script written in the test, failing t at once if it
// is invalid. Errors are labelled with the test's name.
func MustParse(t testing.TB, yamlText string) *Script {
	t.Helper()
	s, err := ParseScript(t.Name(), []byte(yamlText))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
