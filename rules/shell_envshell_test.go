package rules

import "testing"

// TestAnalyseEnvironmentShells checks that a command run inside a
// development environment's shell (nix-shell --run, nix develop -c) is
// analysed as that command: a test run is a test run.
func TestAnalyseEnvironmentShells(t *testing.T) {
	for _, c := range []struct {
		line      string
		test, run bool
	}{
		{`nix-shell --run "pytest -q" 2>&1 | tail -40`, true, true},
		{`nix-shell --pure --run "pytest -q && pylint ."`, true, true},
		{`nix-shell -p jq --command "python script.py"`, false, true},
		{`nix develop -c go test ./...`, true, true},
		{`nix develop --command cargo test`, true, true},
		{`nix-shell -p hello`, false, false},
	} {
		f := analyseShell(c.line)
		if f.test != c.test || f.run != c.run {
			t.Errorf("%s: test %v run %v, want test %v run %v", c.line, f.test, f.run, c.test, c.run)
		}
	}
}
