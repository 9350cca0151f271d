package config

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"

	"github.com/goccy/go-yaml/ast"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// Options say where [Load] finds the settings files.
type Options struct {
	// AgentDir is the user's agent folder (~/.vigil/agent, or
	// $VIGIL_AGENT_DIR), which holds the user file; empty skips it.
	AgentDir string
	// ProjectDir is the project's root folder, which holds the project
	// file; empty skips it.
	ProjectDir string
	// TrustProject applies the project file's guarded settings without
	// looking the folder up in the trusted folders.
	TrustProject bool
}

// UserFile returns the path of the user settings file in an agent folder.
func UserFile(agentDir string) string { return filepath.Join(agentDir, "config.yml") }

// ProjectFile returns the path of the project settings file in a project.
func ProjectFile(projectDir string) string {
	return filepath.Join(projectDir, ".vigil", "config.yml")
}

// Load returns the defaults overlaid with the user file, then with the
// project file. A missing file is skipped. Within a file a key that is
// absent or null leaves the value below it; nested settings merge key by
// key, modelRoles merges role by role, and a list would replace the list
// below it. Errors name the file, line, column and key. A file that is not
// a regular one, or passes the limits of [yamlfile.Parse] (1 MiB, nesting,
// alias expansion), is an error before anything is built from it.
//
// The project file's guarded settings (those that move data or money:
// model roles, turning the advisor on, its reviewer and mode, what reaches
// the agent, tools outside the project) apply only when the folder is
// trusted ([Trust], or Options.TrustProject); otherwise the values below
// stay. [LoadProject] also says what the project changed.
func Load(opts Options) (*Settings, error) {
	s, _, err := LoadProject(opts)
	return s, err
}

// LoadProject is [Load], and says which guarded settings the project file
// changes, applied or held back; the overrides are nil without a project
// file.
func LoadProject(opts Options) (*Settings, *ProjectOverrides, error) {
	s := Default()
	var project *ProjectOverrides
	var files []string
	if opts.AgentDir != "" {
		files = append(files, UserFile(opts.AgentDir))
	}
	if opts.ProjectDir != "" {
		files = append(files, ProjectFile(opts.ProjectDir))
	}
	for _, name := range files {
		data, err := yamlfile.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read settings: %w", err)
		}
		isProject := opts.ProjectDir != "" && name == ProjectFile(opts.ProjectDir)
		below := s.clone()
		if err := s.apply(name, data); err != nil {
			return nil, nil, err
		}
		if isProject {
			trusted, terr := opts.TrustProject, error(nil)
			if !trusted {
				trusted, terr = Trusted(opts.AgentDir, opts.ProjectDir)
			}
			project = s.guardProject(below, name, opts.ProjectDir, data, trusted)
			if terr != nil {
				project.TrustErr = terr.Error()
			}
		}
	}
	return s, project, nil
}

// Parse returns the defaults overlaid with one settings file's data. name
// is used in errors.
func Parse(name string, data []byte) (*Settings, error) {
	s := Default()
	if err := s.apply(name, data); err != nil {
		return nil, err
	}
	return s, nil
}

// apply overlays one file's data on s and validates the result.
func (s *Settings) apply(name string, data []byte) error {
	f, err := yamlfile.Parse(name, data)
	if err != nil {
		return err
	}
	if len(f.Docs) > 1 {
		return &yamlfile.Error{File: name, Line: docLine(f.Docs[1]), Column: 1, Msg: "holds more than one YAML document; settings are one mapping"}
	}
	if isEmpty(f) {
		return nil
	}
	if err := checkKeys(name, f); err != nil {
		return err
	}
	// Decoding replaces a map wholesale; keep the roles below and merge.
	roles := s.ModelRoles
	s.ModelRoles = nil
	err = yamlfile.DecodeParsed(name, data, f, s)
	merged := maps.Clone(roles)
	if merged == nil {
		merged = map[string]string{}
	}
	maps.Copy(merged, s.ModelRoles)
	s.ModelRoles = merged
	if err != nil {
		return err
	}
	return s.validate(name, data)
}

// isEmpty reports whether a parsed file holds no settings: nothing, only
// comments, or null (perhaps tagged or anchored). Decoding such a file
// would zero every field.
func isEmpty(f *ast.File) bool {
	if len(f.Docs) == 0 {
		return true
	}
	return isNull(f.Docs[0].Body)
}

func isNull(n ast.Node) bool {
	switch n := n.(type) {
	case nil, *ast.CommentGroupNode, *ast.NullNode:
		return true
	case *ast.TagNode:
		return isNull(n.Value)
	case *ast.AnchorNode:
		return isNull(n.Value)
	}
	return false
}
