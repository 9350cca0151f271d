package attach

// Which pi or omp the user runs: vigil's extension speaks the extension
// API of a range of their versions, and says so when the one on PATH is
// outside it.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// AgentInstall is the pi or omp found on PATH.
type AgentInstall struct {
	Agent Agent
	// Binary is the agent's command found on PATH; "" when there is none.
	Binary string
	// Version is the agent's version ("1.6.0"); "" when it could not be
	// read (Err says why).
	Version string
	Err     error
}

// agentPackages are the npm packages that ship each agent's command:
// pi's current name first, then the one it had up to 0.73.1.
var agentPackages = map[Agent][]string{
	Pi:  {"@earendil-works/pi-coding-agent", "@mariozechner/pi-coding-agent"},
	Omp: {"@oh-my-pi/pi-coding-agent"},
}

// versionTimeout bounds `AGENT --version`, run when the binary belongs to
// no npm package vigil knows (a standalone build).
const versionTimeout = 5 * time.Second

// FindAgent finds a's command (pi, omp) in the folders of pathList (as
// $PATH) and reads its version: from the package.json of the npm package
// its file lies in (symbolic links resolved), else from what `AGENT
// --version` prints, waited for at most 5 s.
func FindAgent(ctx context.Context, a Agent, pathList string) AgentInstall {
	in := AgentInstall{Agent: a}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, string(a))
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			in.Binary = p
			break
		}
	}
	if in.Binary == "" {
		in.Err = fmt.Errorf("no %s on PATH", a)
		return in
	}
	if v, ok := packageVersion(a, in.Binary); ok {
		in.Version = v
		return in
	}
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, in.Binary, "--version").Output()
	if err != nil {
		in.Err = fmt.Errorf("%s --version: %w", in.Binary, err)
		return in
	}
	if in.Version = versionIn(string(out)); in.Version == "" {
		in.Err = fmt.Errorf("%s --version printed no version: %.80q", in.Binary, out)
	}
	return in
}

// packageVersion reads the version of a's npm package from the
// package.json of the nearest folder above binary's real file that holds
// one naming a package of a.
func packageVersion(a Agent, binary string) (string, bool) {
	real, err := filepath.EvalSymlinks(binary)
	if err != nil {
		return "", false
	}
	for d := filepath.Dir(real); ; d = filepath.Dir(d) {
		data, err := yamlfile.ReadRegular(filepath.Join(d, "package.json"), 1<<20)
		if err == nil {
			var pkg struct{ Name, Version string }
			if json.Unmarshal(data, &pkg) == nil {
				for _, name := range agentPackages[a] {
					if pkg.Name == name && parseVersion(pkg.Version) != nil {
						return pkg.Version, true
					}
				}
			}
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// versionIn returns the first word of out that reads as a version.
func versionIn(out string) string {
	for _, w := range strings.Fields(out) {
		w = strings.TrimPrefix(w, "v")
		if parseVersion(w) != nil {
			return w
		}
	}
	return ""
}

// parseVersion reads MAJOR.MINOR.PATCH, with anything after a - or +
// ignored; nil when v is no such version.
func parseVersion(v string) []int {
	v, _, _ = strings.Cut(v, "+")
	v, _, _ = strings.Cut(v, "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return nil
	}
	out := make([]int, 3)
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil
		}
		out[i] = n
	}
	return out
}

// versionLess reports whether version a comes before b (both valid).
func versionLess(a, b string) bool {
	x, y := parseVersion(a), parseVersion(b)
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}

// extensionVersions is the range of each agent's versions whose
// extension API vigil's extension speaks: from Oldest (pi 0.65 gave
// session_start the reason it reads) up to, not including, Beyond (a
// major version vigil has not seen); Tested is the newest it was tested
// with.
var extensionVersions = map[Agent]struct{ Oldest, Tested, Beyond string }{
	Pi:  {Oldest: "0.65.0", Tested: "1.6.0", Beyond: "2.0.0"},
	Omp: {Oldest: "18.0.0", Tested: "18.2.3", Beyond: "19.0.0"},
}

// piTrustSince is the first pi that loads a project's own extensions
// only in a project the user trusts.
const piTrustSince = "0.79.0"

// VersionProblem says why vigil's extension may not work in in's
// version: too old or too new; "" when it is in range or unknown.
func VersionProblem(in AgentInstall) string {
	r, ok := extensionVersions[in.Agent]
	if !ok || parseVersion(in.Version) == nil {
		return ""
	}
	switch {
	case versionLess(in.Version, r.Oldest):
		return fmt.Sprintf("%s %s (%s) is older than vigil's extension supports (%s or later): it may not load it, or miss events; update %s", in.Agent, in.Version, in.Binary, strings.TrimSuffix(r.Oldest, ".0"), in.Agent)
	case !versionLess(in.Version, r.Beyond):
		return fmt.Sprintf("%s %s (%s) is newer than vigil's extension knows (tested up to %s): it may not load it, or miss events; update vigil, or use %s %s", in.Agent, in.Version, in.Binary, r.Tested, in.Agent, r.Tested)
	}
	return ""
}

// ProjectTrust is pi's decision on loading a project's own extensions.
type ProjectTrust int

// pi's decisions, as it takes them: a saved answer for the folder or the
// nearest folder above it (trust.json), else defaultProjectTrust.
const (
	// Trusted: pi loads the project's extensions.
	Trusted ProjectTrust = iota
	// Distrusted: the user told pi not to trust the project.
	Distrusted
	// TrustAsked: nothing decided and defaultProjectTrust is "ask" (the
	// default): pi asks in its terminal UI; print, JSON and RPC modes
	// skip the project's extensions without a word.
	TrustAsked
	// TrustNever: nothing decided and defaultProjectTrust is "never".
	TrustNever
)

// PiProjectTrust reads what pi (0.79 and later) decides for a session in
// dir: the saved decision for dir or the nearest folder above it in
// agentDir/trust.json, else agentDir/settings.json's defaultProjectTrust.
// A file that cannot be read or is not what pi writes is an error naming
// it.
func PiProjectTrust(agentDir, dir string) (ProjectTrust, error) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	dir = filepath.Clean(dir)
	decisions, err := readPiJSON[map[string]*bool](filepath.Join(agentDir, "trust.json"))
	if err != nil {
		return 0, err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if v := decisions[d]; v != nil {
			if *v {
				return Trusted, nil
			}
			return Distrusted, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	settings, err := readPiJSON[struct {
		DefaultProjectTrust string `json:"defaultProjectTrust"`
	}](filepath.Join(agentDir, "settings.json"))
	if err != nil {
		return 0, err
	}
	switch settings.DefaultProjectTrust {
	case "always":
		return Trusted, nil
	case "never":
		return TrustNever, nil
	}
	return TrustAsked, nil
}

// readPiJSON reads one of pi's JSON files into a T; a missing file is
// the zero T.
func readPiJSON[T any](file string) (T, error) {
	var v T
	data, err := yamlfile.ReadRegular(file, MaxSettingsSize)
	if errors.Is(err, os.ErrNotExist) {
		return v, nil
	}
	if err != nil {
		return v, err // names file: not a regular file, too large, unreadable
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !json.Valid(data) {
		return v, syntaxError(file, data)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return v, fmt.Errorf("%s: not what pi writes: %w", file, err)
	}
	return v, nil
}

// LoadProblems says why a may not load vigil's extension in file,
// attached at scope s, when in is the agent on PATH: a version outside
// the extension's range ([VersionProblem]); and for a project's extension
// in pi 0.79 and later (or a pi of unknown version), a project pi does
// not trust, read from piAgentDir (pi's agent folder: trust.json,
// settings.json). omp has no such trust: it loads a project's extensions.
func LoadProblems(a Agent, s Scope, file string, in AgentInstall, piAgentDir string) []string {
	var out []string
	if p := VersionProblem(in); p != "" {
		out = append(out, p)
	}
	if a != Pi || s != Project {
		return out
	}
	known := parseVersion(in.Version) != nil
	if known && versionLess(in.Version, piTrustSince) {
		return out
	}
	dir := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	trust, err := PiProjectTrust(piAgentDir, dir)
	if err != nil {
		return append(out, fmt.Sprintf("cannot tell whether pi trusts %s: %v", dir, err))
	}
	pi := "pi " + in.Version
	if !known {
		pi = "pi 0.79 and later"
	}
	instead := "or attach for every project instead: vigil attach pi"
	switch trust {
	case Distrusted:
		out = append(out, fmt.Sprintf("%s will not load it: %s is marked not trusted in %s; trust it with /trust in pi, %s",
			pi, dir, filepath.Join(piAgentDir, "trust.json"), instead))
	case TrustNever:
		out = append(out, fmt.Sprintf("%s will not load it: %s has no trust decision and defaultProjectTrust is \"never\" in %s; trust it with /trust in pi, %s",
			pi, dir, filepath.Join(piAgentDir, "settings.json"), instead))
	case TrustAsked:
		out = append(out, fmt.Sprintf("%s loads it only once you trust %s: its terminal UI asks, and pi -p (print, JSON and RPC modes) skips it without a word; trust it with /trust in pi or run pi --approve, %s",
			pi, dir, instead))
	}
	return out
}
