package attach

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// Claude Code's MCP servers: {"mcpServers": {"vigil": {"type": "stdio",
// "command": VIGIL, "args": ["mcp"]}}}, edited in place like the hooks
// (edit.go): the rest of the file keeps its bytes. A project's servers
// that are not shared (Claude Code's local scope) are in ~/.claude.json
// under "projects"[PROJECT].

const mcpJSONKey = "mcpServers." + MCPServerName

// mcpScope returns the object that holds "mcpServers" and its depth:
// the top level (0), or, for project (Claude Code's local scope, in
// ~/.claude.json), the top level's "projects"[project] (2); nil when
// there is none and create is false. create makes the missing objects
// (attach). The top level must be an object, and so must the others
// when strict.
func (e *editor) mcpScope(project string, strict, create bool) (*hujson.Object, int, error) {
	root, ok := e.doc.root.Value.(*hujson.Object)
	if !ok {
		return nil, 0, e.errorAt(e.doc.root, "the file holds %s: want a JSON object", kindName(e.doc.root))
	}
	if project == "" {
		return root, 0, nil
	}
	obj := root
	for depth, key := range []string{"projects", project} {
		j, err := e.member(obj, key)
		if err != nil {
			return nil, 0, err
		}
		if j < 0 {
			if !create {
				return nil, 0, nil
			}
			v := e.st.object(depth + 1)
			e.st.appendMember(obj, depth, e.st.member(key, v))
			obj = v.Value.(*hujson.Object)
			continue
		}
		val := obj.Members[j].Value
		next, ok := val.Value.(*hujson.Object)
		if !ok {
			if strict {
				return nil, 0, e.errorAt(val, "%s: want an object, found %s", key, kindName(val))
			}
			return nil, 0, nil
		}
		obj = next
	}
	return obj, 2, nil
}

// mcpJSON finds the "mcpServers" object (nil when there is none) in
// scope, and the index of its vigil member (-1 when there is none).
// "mcpServers" must be an object when strict.
func (e *editor) mcpJSON(scope *hujson.Object, strict bool) (servers *hujson.Object, i int, err error) {
	root := scope
	if root == nil {
		return nil, -1, nil
	}
	j, err := e.member(root, "mcpServers")
	if err != nil || j < 0 {
		return nil, -1, err
	}
	val := root.Members[j].Value
	servers, ok := val.Value.(*hujson.Object)
	if !ok {
		if strict {
			return nil, -1, e.errorAt(val, "mcpServers: want an object of servers, found %s", kindName(val))
		}
		return nil, -1, nil
	}
	i, err = e.member(servers, MCPServerName)
	return servers, i, err
}

// jsonEntry reads a server's entry: its command and string args.
func jsonEntry(e *editor, v hujson.Value) (*MCPEntry, int, error) {
	en := &MCPEntry{Key: mcpJSONKey}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return en, -1, nil
	}
	cmd, err := e.member(obj, "command")
	if err != nil {
		return nil, -1, err
	}
	if cmd >= 0 {
		en.Command, _ = str(obj.Members[cmd].Value)
	}
	args, err := e.member(obj, "args")
	if err != nil {
		return nil, -1, err
	}
	if args >= 0 {
		if list, ok := obj.Members[args].Value.Value.(*hujson.Array); ok {
			for _, el := range list.Elements {
				s, ok := str(el)
				if !ok {
					en.Args = nil
					break
				}
				en.Args = append(en.Args, s)
			}
		}
	}
	if t, err := e.member(obj, "type"); err != nil {
		return nil, -1, err
	} else if t >= 0 {
		if typ, _ := str(obj.Members[t].Value); typ != "stdio" {
			return en, cmd, nil
		}
	}
	en.Ours = isVigilMCP(en.Command, en.Args)
	return en, cmd, nil
}

func attachMCPJSON(data []byte, name, vigil, project string) (*Result, error) {
	doc, err := parseOrEmpty(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc, st: detectStyle(doc.root)}
	root, depth, err := e.mcpScope(project, true, true)
	if err != nil {
		return nil, err
	}
	servers, i, err := e.mcpJSON(root, true)
	if err != nil {
		return nil, err
	}
	res := &Result{Data: data}
	if i >= 0 {
		v := servers.Members[i].Value
		en, cmd, err := jsonEntry(e, v)
		if err != nil {
			return nil, err
		}
		if !en.Ours {
			res.Warnings = append(res.Warnings, foreignWarning(name, en))
			return res, nil
		}
		if en.Command == vigil {
			return res, nil
		}
		v.Value.(*hujson.Object).Members[cmd].Value.Value = hujson.Literal(quoteJSONString(vigil))
		res.Changes = append(res.Changes, Change{Event: mcpJSONKey, Action: Updated, Was: en.Command, Now: vigil})
		res.Data = doc.bytes()
		return res, nil
	}
	if servers == nil {
		v := e.st.object(depth + 1)
		servers = v.Value.(*hujson.Object)
		e.st.appendMember(root, depth, e.st.member("mcpServers", v))
	}
	var args []hujson.Value
	for _, a := range MCPArgs() {
		args = append(args, scalar(quoteJSONString(a)))
	}
	entry := e.st.object(depth+2,
		e.st.member("type", scalar(quoteJSONString("stdio"))),
		e.st.member("command", scalar(quoteJSONString(vigil))),
		e.st.member("args", e.st.array(depth+3, args...)))
	e.st.appendMember(servers, depth+1, e.st.member(MCPServerName, entry))
	res.Changes = append(res.Changes, Change{Event: mcpJSONKey, Action: Added, Now: vigil + " mcp"})
	res.Data = doc.bytes()
	return res, nil
}

func detachMCPJSON(data []byte, name, project string) (*Result, error) {
	res := &Result{Data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return res, nil
	}
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc}
	root, _, err := e.mcpScope(project, false, false)
	if err != nil {
		return nil, err
	}
	servers, i, err := e.mcpJSON(root, false)
	if err != nil || i < 0 {
		return res, err
	}
	en, _, err := jsonEntry(e, servers.Members[i].Value)
	if err != nil || !en.Ours {
		return res, err
	}
	removeMember(servers, i)
	if len(servers.Members) == 0 {
		if j := memberIndex(root, servers); j >= 0 {
			removeMember(root, j)
		}
	}
	if project != "" && len(root.Members) == 0 {
		e.dropEmptyProject(project)
	}
	res.Changes = append(res.Changes, Change{Event: mcpJSONKey, Action: Removed, Was: en.Command + " mcp"})
	res.Data = doc.bytes()
	return res, nil
}

func mcpEntryJSON(data []byte, name, project string) (*MCPEntry, error) {
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc}
	root, _, err := e.mcpScope(project, false, false)
	if err != nil {
		return nil, err
	}
	servers, i, err := e.mcpJSON(root, false)
	if err != nil || i < 0 {
		return nil, err
	}
	en, _, err := jsonEntry(e, servers.Members[i].Value)
	return en, err
}

// dropEmptyProject removes "projects"[project] from the top level once
// detach left it empty, and "projects" when that leaves it empty: what
// attach created for the local scope goes with it.
func (e *editor) dropEmptyProject(project string) {
	root, ok := e.doc.root.Value.(*hujson.Object)
	if !ok {
		return
	}
	j, err := e.member(root, "projects")
	if err != nil || j < 0 {
		return
	}
	projects, ok := root.Members[j].Value.Value.(*hujson.Object)
	if !ok {
		return
	}
	if k, err := e.member(projects, project); err == nil && k >= 0 {
		if obj, ok := projects.Members[k].Value.Value.(*hujson.Object); ok && len(obj.Members) == 0 {
			removeMember(projects, k)
		}
	}
	if len(projects.Members) == 0 {
		removeMember(root, j)
	}
}
