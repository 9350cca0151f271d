package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// A project's settings file comes with the folder: a cloned repository
// brings its .vigil/config.yml. The settings in it that move data or
// money (which models run and are paid for, whether the advisor runs and
// what reaches the agent, whether tools may leave the project) apply only
// once the user has trusted the folder; until then they are held back, and
// either way the user is told which of their settings the folder changes.

// guarded are the settings (dotted keys, or a group's prefix) a project
// file may set only in a trusted folder.
var guarded = []string{
	"modelRoles",
	"advisor.enabled",
	"advisor.reviewer",
	"advisor.gate",
	"advisor.subagents",
	"advisor.mode",
	"advisor.maxNotesPerUpdate",
	"advisor.cadence",
	"advisor.effort",
	// How often the periodic mode reviews, on the agent's own model.
	"advisor.periodic.everyToolCalls",
	"advisor.periodic.everyMinutes",
	"advisor.promotion",
	"advisor.roster",
	"advisor.allowPromptInjection",
	"advisor.fleet",
	"tools.allowOutsideRoots",
	// Whether the UI asks before bash, write and edit run.
	"tools.approval",
}

func isGuarded(key string) bool {
	for _, g := range guarded {
		if key == g || strings.HasPrefix(key, g+".") {
			return true
		}
	}
	return false
}

// Override is a guarded setting the project file changes.
type Override struct {
	// Key is the dotted key (modelRoles.advisor, advisor.enabled); Value
	// the project's value as text; Line its line in the file (0 when not
	// found).
	Key, Value string
	Line       int
	// Applied says the folder is trusted, so the value is in effect;
	// otherwise the value below it stays.
	Applied bool
}

// ProjectOverrides say what a project's settings file changes of the
// user's guarded settings.
type ProjectOverrides struct {
	// File is the project settings file; Dir the project folder.
	File, Dir string
	// Trusted says the folder is trusted (see [Trust]); TrustErr why the
	// list of trusted folders could not be read ("" when it could).
	Trusted   bool
	TrustErr  string
	Overrides []Override
}

// Notice says the overrides to the user in one line: what the project
// changes and, in an untrusted folder, that it was held back and how to
// apply it. "" when the project changes nothing guarded.
func (p *ProjectOverrides) Notice() string {
	if p == nil || len(p.Overrides) == 0 {
		return ""
	}
	parts := make([]string, len(p.Overrides))
	for i, o := range p.Overrides {
		parts[i] = o.Key + ": " + o.Value
		if o.Line > 0 {
			parts[i] += fmt.Sprintf(" (line %d)", o.Line)
		}
	}
	list := strings.Join(parts, ", ")
	if p.Trusted {
		return fmt.Sprintf("%s overrides your settings (the folder is trusted): %s", p.File, list)
	}
	why := "this folder is not trusted"
	if p.TrustErr != "" {
		why += " (" + p.TrustErr + ")"
	}
	return fmt.Sprintf("%s would set %s; not applied, because %s. If you trust it, run: vigil trust %s", p.File, list, why, p.Dir)
}

// TrustFile is the file, in the agent folder, that lists the trusted
// folders.
func TrustFile(agentDir string) string { return filepath.Join(agentDir, "trusted-folders.json") }

// trustFile is the trust file's content.
type trustFile struct {
	Folders []string `json:"folders"`
}

// maxTrustFile bounds the trust file read.
const maxTrustFile = 1 << 20

func readTrust(agentDir string) (trustFile, error) {
	var t trustFile
	data, err := yamlfile.ReadRegular(TrustFile(agentDir), maxTrustFile)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return t, fmt.Errorf("%s: not the trusted folders' list: %w", TrustFile(agentDir), err)
	}
	return t, nil
}

// canonical is dir absolute, cleaned, with symbolic links resolved when
// it exists.
func canonical(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", dir, err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	return filepath.Clean(abs), nil
}

// Trusted reports whether dir, or a folder above it, is trusted. A trust
// file that cannot be read trusts nothing, and says why.
func Trusted(agentDir, dir string) (bool, error) {
	if agentDir == "" || dir == "" {
		return false, nil
	}
	t, err := readTrust(agentDir)
	if err != nil {
		return false, err
	}
	d, err := canonical(dir)
	if err != nil {
		return false, err
	}
	return t.covering(d, "") != "", nil
}

// covering is the first listed folder that is d or above it, other than
// skip; "" when none is.
func (t trustFile) covering(d, skip string) string {
	for _, f := range t.Folders {
		if f != skip && within(f, d) {
			return f
		}
	}
	return ""
}

// TrustedThrough is the listed folder above dir that trusts it, not
// counting dir itself; "" when there is none.
func TrustedThrough(agentDir, dir string) (string, error) {
	t, err := readTrust(agentDir)
	if err != nil {
		return "", err
	}
	d, err := canonical(dir)
	if err != nil {
		return "", err
	}
	return t.covering(d, d), nil
}

// CheckTrustable says why dir cannot be trusted, or nil when it can: it
// must be a folder that exists, and neither the root of the file system
// nor home (the user's home folder; "" skips that check) or a folder that
// holds it, since a trusted folder trusts every folder under it, and so
// every project's settings there.
func CheckTrustable(dir, home string) error {
	d, err := canonical(dir)
	if err != nil {
		return err
	}
	info, err := os.Stat(d)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("trust %s: the folder does not exist", d)
	case err != nil:
		return fmt.Errorf("trust %s: %w", d, err)
	case !info.IsDir():
		return fmt.Errorf("trust %s: not a folder; trust the project folder that holds it", d)
	case filepath.Dir(d) == d:
		return fmt.Errorf("trust %s: refused: it is the root of the file system, and trusting it would trust every project's settings on this machine; trust your project folders one by one", d)
	}
	if home == "" {
		return nil
	}
	h, err := canonical(home)
	if err != nil {
		return err
	}
	if within(d, h) {
		what := "your home folder"
		if d != h {
			what = "a folder that holds your home folder (" + h + ")"
		}
		return fmt.Errorf("trust %s: refused: it is %s, and trusting it would trust the settings of every project under it, cloned ones included; trust your project folders one by one", d, what)
	}
	return nil
}

// TrustedFolders lists the trusted folders.
func TrustedFolders(agentDir string) ([]string, error) {
	t, err := readTrust(agentDir)
	return t.Folders, err
}

// Trust adds dir to the trusted folders (untrust: removes it), writing
// the list atomically. It returns the folder as stored. It refuses to
// trust what [CheckTrustable] refuses without a home folder (a folder
// that does not exist, the root of the file system); callers that know
// the home folder check it first. Revoking a folder that is not listed
// is an error, which says so, or through which listed folder above it
// the folder stays trusted and how to revoke that.
func Trust(agentDir, dir string, untrust bool) (string, error) {
	if !untrust {
		if err := CheckTrustable(dir, ""); err != nil {
			return "", err
		}
	}
	d, err := canonical(dir)
	if err != nil {
		return "", err
	}
	t, err := readTrust(agentDir)
	if err != nil {
		return "", err
	}
	i := slices.Index(t.Folders, d)
	switch {
	case untrust && i < 0:
		if p := t.covering(d, d); p != "" {
			return d, fmt.Errorf("%s is not in the trusted folders itself, and stays trusted through %s (a trusted folder trusts every folder under it). To stop trusting it, run: vigil trust --revoke %s", d, p, p)
		}
		return d, fmt.Errorf("%s is not in the trusted folders (%s)", d, TrustFile(agentDir))
	case untrust:
		t.Folders = slices.Delete(t.Folders, i, i+1)
	case i >= 0:
		return d, nil
	default:
		t.Folders = append(t.Folders, d)
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(agentDir, 0o700); err != nil {
		return "", fmt.Errorf("trust %s: %w", d, err)
	}
	if err := writeFile(TrustFile(agentDir), append(data, '\n')); err != nil {
		return "", fmt.Errorf("trust %s: %w", d, err)
	}
	return d, nil
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// clone is a copy of s that shares nothing a decode could change.
func (s *Settings) clone() *Settings {
	c := *s
	c.ModelRoles = maps.Clone(s.ModelRoles)
	c.Advisor.Promotion = slices.Clone(s.Advisor.Promotion)
	c.Advisor.Roster = maps.Clone(s.Advisor.Roster)
	return &c
}

// guardedValues are the guarded settings of s by dotted key, as text;
// modelRoles is one key per role.
func (s *Settings) guardedValues() map[string]string {
	out := map[string]string{}
	for role, ref := range s.ModelRoles {
		out["modelRoles."+role] = ref
	}
	for name, on := range s.Advisor.Roster {
		out["advisor.roster."+name] = fmt.Sprint(on)
	}
	for _, key := range keys() {
		if key == "modelRoles" || key == "advisor.roster" || !isGuarded(key) {
			continue
		}
		if v, ok := s.field(key); ok {
			out[key] = fmt.Sprint(v.Interface())
		}
	}
	return out
}

// field is the setting at a dotted key.
func (s *Settings) field(key string) (reflect.Value, bool) {
	v := reflect.ValueOf(s).Elem()
	for _, seg := range strings.Split(key, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		f, ok := fieldByKey(v.Type(), seg)
		if !ok {
			return reflect.Value{}, false
		}
		v = v.FieldByIndex(f.Index)
	}
	return v, true
}

// guardProject compares the guarded settings before the project file
// (below) with s after it, records each change with its line in the
// file, and, unless trusted, puts back the values below.
func (s *Settings) guardProject(below *Settings, name, dir string, data []byte, trusted bool) *ProjectOverrides {
	p := &ProjectOverrides{File: name, Dir: dir, Trusted: trusted}
	before, after := below.guardedValues(), s.guardedValues()
	var changed []string
	for k, v := range after {
		if before[k] != v {
			changed = append(changed, k)
		}
	}
	if len(changed) == 0 {
		return p
	}
	slices.Sort(changed)
	f, _ := yamlfile.Parse(name, data)
	for _, k := range changed {
		p.Overrides = append(p.Overrides, Override{Key: k, Value: after[k], Line: keyLine(f, k), Applied: trusted})
	}
	if trusted {
		return p
	}
	s.ModelRoles = below.ModelRoles
	s.Advisor.Roster = below.Advisor.Roster
	for _, k := range changed {
		if strings.HasPrefix(k, "modelRoles.") || strings.HasPrefix(k, "advisor.roster.") {
			continue
		}
		dst, ok1 := s.field(k)
		src, ok2 := below.field(k)
		if ok1 && ok2 {
			dst.Set(src)
		}
	}
	return p
}

// keyLine is the line of the dotted key in f; 0 when it is not there.
func keyLine(f *ast.File, key string) int {
	if f == nil || len(f.Docs) == 0 {
		return 0
	}
	n := f.Docs[0].Body
	line := 0
	for _, seg := range strings.Split(key, ".") {
		mv := lookupKey(n, seg)
		if mv == nil {
			return line
		}
		if pos := mv.Key.GetToken().Position; pos != nil {
			line = pos.Line
		}
		n = mv.Value
	}
	return line
}

// lookupKey finds the entry of key in a mapping node.
func lookupKey(n ast.Node, key string) *ast.MappingValueNode {
	switch m := n.(type) {
	case *ast.MappingNode:
		for _, mv := range m.Values {
			if mv.Key.GetToken().Value == key {
				return mv
			}
		}
	case *ast.MappingValueNode:
		if m.Key.GetToken().Value == key {
			return m
		}
	case *ast.TagNode:
		return lookupKey(m.Value, key)
	case *ast.AnchorNode:
		return lookupKey(m.Value, key)
	}
	return nil
}
