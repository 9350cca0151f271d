package attach

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// Codex's MCP servers: a [mcp_servers.vigil] table in config.toml with
// command = VIGIL, args = ["mcp"] and env_vars naming what `vigil mcp`
// needs from the environment to find the sidecars ([MCPEnvVars]): Codex
// gives an MCP server only a few variables of its own unless told. The file is read with a TOML parser,
// which refuses an invalid one and says where; the edit itself is on the
// text, line by line, so that comments, layout and the other tables keep
// their bytes: the table is appended at the end, its command line
// rewritten, or its lines (through its sub-tables, such as
// [mcp_servers.vigil.env]) removed. Every edit is checked by parsing the
// result: vigil's entry must be as wanted and everything else must read
// as it did, or the file is left alone with an error.

const mcpTOMLKey = "mcp_servers." + MCPServerName

var (
	// tomlHeader matches vigil's table header, [mcp_servers.vigil], with
	// the spaces and quotes TOML allows and a comment after it.
	tomlHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\s*(mcp_servers|"mcp_servers"|'mcp_servers')\s*\.\s*(vigil|"vigil"|'vigil')\s*\]\s*(#.*)?$`)
	})
	// tomlSubHeader matches the header of one of its sub-tables.
	tomlSubHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\s*(mcp_servers|"mcp_servers"|'mcp_servers')\s*\.\s*(vigil|"vigil"|'vigil')\s*\.`)
	})
	// tomlCommand matches a command key at the start of a line.
	tomlCommand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*(command|"command"|'command')\s*=\s*)`) })
)

// decodeTOML parses data, its errors naming name, the line and column.
func decodeTOML(data []byte, name string) (map[string]any, error) {
	m := map[string]any{}
	if _, err := toml.Decode(string(data), &m); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &yamlfile.Error{File: name, Line: pe.Position.Line, Column: pe.Position.Col, Msg: pe.Message + " (not valid TOML)"}
		}
		return nil, &yamlfile.Error{File: name, Msg: err.Error()}
	}
	return m, nil
}

// tomlEntry returns the entry named vigil in m (nil when there is none).
// mcp_servers must be a table when strict.
func tomlEntry(m map[string]any, name string, strict bool) (*MCPEntry, error) {
	raw, ok := m["mcp_servers"]
	if !ok {
		return nil, nil
	}
	servers, ok := raw.(map[string]any)
	if !ok {
		if strict {
			return nil, &yamlfile.Error{File: name, Msg: "mcp_servers: want a table of servers"}
		}
		return nil, nil
	}
	raw, ok = servers[MCPServerName]
	if !ok {
		return nil, nil
	}
	en := &MCPEntry{Key: mcpTOMLKey}
	t, ok := raw.(map[string]any)
	if !ok {
		return en, nil
	}
	en.Command, _ = t["command"].(string)
	if args, ok := t["args"].([]any); ok {
		for _, a := range args {
			s, ok := a.(string)
			if !ok {
				en.Args = nil
				break
			}
			en.Args = append(en.Args, s)
		}
	}
	en.Ours = isVigilMCP(en.Command, en.Args)
	return en, nil
}

func mcpEntryTOML(data []byte, name string) (*MCPEntry, map[string]any, error) {
	m, err := decodeTOML(data, name)
	if err != nil {
		return nil, nil, err
	}
	en, err := tomlEntry(m, name, false)
	return en, m, err
}

// withoutVigil is m with mcp_servers.vigil deleted (and mcp_servers when
// that leaves it empty), for comparing the rest of two files.
func withoutVigil(m map[string]any) map[string]any {
	servers, ok := m["mcp_servers"].(map[string]any)
	if !ok {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	rest := map[string]any{}
	for k, v := range servers {
		if k != MCPServerName {
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		delete(out, "mcp_servers")
	} else {
		out["mcp_servers"] = rest
	}
	return out
}

// tomlTables returns the lines of data and, for each line that looks
// like vigil's table header, the range [start, end) of that table with
// its sub-tables: from the header to its last line that is neither blank
// nor a comment. A header-like line may sit in a multi-line string: the
// check after an edit ([checkTOML]) tells which range is the table. None
// means the entry is written otherwise (an inline table, dotted keys).
func tomlTables(data []byte) (lines []string, ranges [][2]int) {
	lines = strings.SplitAfter(string(data), "\n")
	for start, l := range lines {
		if !tomlHeader().MatchString(strings.TrimRight(l, "\r\n")) {
			continue
		}
		end := start + 1
		for i := start + 1; i < len(lines); i++ {
			t := strings.TrimSpace(lines[i])
			if strings.HasPrefix(t, "[") && !tomlSubHeader().MatchString(lines[i]) {
				break
			}
			if t != "" && !strings.HasPrefix(t, "#") {
				end = i + 1
			}
		}
		ranges = append(ranges, [2]int{start, end})
	}
	return lines, ranges
}

// checkTOML parses the edited text: vigil's entry must be what want
// says (nil: none), and the rest must read as before.
func checkTOML(name string, before map[string]any, after []byte, want func(*MCPEntry) bool) error {
	m, err := decodeTOML(after, name)
	if err == nil {
		var en *MCPEntry
		if en, err = tomlEntry(m, name, true); err == nil && want(en) && reflect.DeepEqual(withoutVigil(before), withoutVigil(m)) {
			return nil
		}
	}
	return &yamlfile.Error{File: name, Msg: "vigil cannot edit [" + mcpTOMLKey + "] in this file's layout without changing something else: edit it by hand (docs/attach.md)"}
}

func attachMCPTOML(data []byte, name, vigil string) (*Result, error) {
	res := &Result{Data: data}
	en, m, err := mcpEntryTOML(data, name)
	if err != nil {
		return nil, err
	}
	if _, err := tomlEntry(m, name, true); err != nil {
		return nil, err
	}
	switch {
	case en != nil && !en.Ours:
		res.Warnings = append(res.Warnings, foreignWarning(name, en))
		return res, nil
	case en != nil && en.Command == vigil:
		return res, nil
	case en != nil:
		lines, ranges := tomlTables(data)
		if len(ranges) == 0 {
			return nil, &yamlfile.Error{File: name, Msg: "vigil's " + mcpTOMLKey + " is not written as a [" + mcpTOMLKey + "] table: edit its command by hand"}
		}
		err := error(&yamlfile.Error{File: name, Msg: "vigil's [" + mcpTOMLKey + "] has no command line vigil can rewrite: edit it by hand"})
		for _, r := range ranges {
			out, ok := rewriteCommand(lines, r, vigil)
			if !ok {
				continue
			}
			if err = checkTOML(name, m, out, func(e *MCPEntry) bool { return e != nil && e.Ours && e.Command == vigil }); err == nil {
				res.Data = out
				res.Changes = append(res.Changes, Change{Event: mcpTOMLKey, Action: Updated, Was: en.Command, Now: vigil})
				return res, nil
			}
		}
		return nil, err
	}
	var b bytes.Buffer
	b.Write(data)
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteString(nl)
	}
	if len(data) > 0 {
		// One blank line before the table, which detach removes with it.
		b.WriteString(nl)
	}
	fmt.Fprintf(&b, "[%s]%scommand = %s%sargs = [", mcpTOMLKey, nl, quoteJSONString(vigil), nl)
	for i, a := range MCPArgs() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(quoteJSONString(a))
	}
	b.WriteString("]" + nl + "env_vars = [")
	for i, v := range MCPEnvVars() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(quoteJSONString(v))
	}
	b.WriteString("]" + nl)
	out := b.Bytes()
	if err := checkTOML(name, m, out, func(e *MCPEntry) bool { return e != nil && e.Ours && e.Command == vigil }); err != nil {
		return nil, err
	}
	res.Data = out
	res.Changes = append(res.Changes, Change{Event: mcpTOMLKey, Action: Added, Now: vigil + " mcp"})
	return res, nil
}

// rewriteCommand returns the lines with the command in range r set to
// vigil, ok false when r has no command line of one string.
func rewriteCommand(lines []string, r [2]int, vigil string) ([]byte, bool) {
	for i := r[0] + 1; i < r[1]; i++ {
		loc := tomlCommand().FindStringSubmatchIndex(lines[i])
		if loc == nil {
			continue
		}
		rest, ok := afterTOMLString(lines[i][loc[3]:])
		if !ok {
			return nil, false
		}
		out := slices.Clone(lines)
		out[i] = lines[i][:loc[3]] + string(quoteJSONString(vigil)) + rest
		return []byte(strings.Join(out, "")), true
	}
	return nil, false
}

// afterTOMLString returns what follows the string that s starts with
// (a basic or literal string on one line), ok false when s does not
// start with one.
func afterTOMLString(s string) (string, bool) {
	if s == "" || strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, "'''") {
		return "", false
	}
	switch s[0] {
	case '\'':
		if i := strings.IndexByte(s[1:], '\''); i >= 0 {
			return s[i+2:], true
		}
	case '"':
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				return s[i+1:], true
			}
		}
	}
	return "", false
}

func detachMCPTOML(data []byte, name string) (*Result, error) {
	res := &Result{Data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return res, nil
	}
	en, m, err := mcpEntryTOML(data, name)
	if err != nil || en == nil || !en.Ours {
		return res, err
	}
	lines, ranges := tomlTables(data)
	if len(ranges) == 0 {
		return nil, &yamlfile.Error{File: name, Msg: "vigil's " + mcpTOMLKey + " is not written as a [" + mcpTOMLKey + "] table: remove it by hand"}
	}
	for _, r := range ranges {
		start, end := r[0], r[1]
		// The blank line attach put before the table goes with it.
		if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
		out := []byte(strings.Join(append(lines[:start:start], lines[end:]...), ""))
		if err = checkTOML(name, m, out, func(e *MCPEntry) bool { return e == nil }); err == nil {
			res.Data = out
			res.Changes = append(res.Changes, Change{Event: mcpTOMLKey, Action: Removed, Was: en.Command + " mcp"})
			return res, nil
		}
	}
	return nil, err
}
