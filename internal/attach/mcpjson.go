package attach

import (
	"bytes"

	"github.com/tailscale/hujson"
)

// Claude Code's MCP servers: {"mcpServers": {"vigil": {"type": "stdio",
// "command": VIGIL, "args": ["mcp"]}}}, edited in place like the hooks
// (edit.go): the rest of the file keeps its bytes.

const mcpJSONKey = "mcpServers." + MCPServerName

// mcpJSON finds the "mcpServers" object (nil when there is none) and the
// index of its vigil member (-1 when there is none). The top level must be
// an object; "mcpServers" must be one when strict.
func (e *editor) mcpJSON(strict bool) (root, servers *hujson.Object, i int, err error) {
	root, ok := e.doc.root.Value.(*hujson.Object)
	if !ok {
		return nil, nil, -1, e.errorAt(e.doc.root, "the file holds %s: want a JSON object", kindName(e.doc.root))
	}
	j, err := e.member(root, "mcpServers")
	if err != nil || j < 0 {
		return root, nil, -1, err
	}
	val := root.Members[j].Value
	servers, ok = val.Value.(*hujson.Object)
	if !ok {
		if strict {
			return nil, nil, -1, e.errorAt(val, "mcpServers: want an object of servers, found %s", kindName(val))
		}
		return root, nil, -1, nil
	}
	i, err = e.member(servers, MCPServerName)
	return root, servers, i, err
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

func attachMCPJSON(data []byte, name, vigil string) (*Result, error) {
	doc, err := parseOrEmpty(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc, st: detectStyle(doc.root)}
	root, servers, i, err := e.mcpJSON(true)
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
		v := e.st.object(1)
		servers = v.Value.(*hujson.Object)
		e.st.appendMember(root, 0, e.st.member("mcpServers", v))
	}
	var args []hujson.Value
	for _, a := range MCPArgs() {
		args = append(args, scalar(quoteJSONString(a)))
	}
	entry := e.st.object(2,
		e.st.member("type", scalar(quoteJSONString("stdio"))),
		e.st.member("command", scalar(quoteJSONString(vigil))),
		e.st.member("args", e.st.array(3, args...)))
	e.st.appendMember(servers, 1, e.st.member(MCPServerName, entry))
	res.Changes = append(res.Changes, Change{Event: mcpJSONKey, Action: Added, Now: vigil + " mcp"})
	res.Data = doc.bytes()
	return res, nil
}

func detachMCPJSON(data []byte, name string) (*Result, error) {
	res := &Result{Data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return res, nil
	}
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc}
	root, servers, i, err := e.mcpJSON(false)
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
	res.Changes = append(res.Changes, Change{Event: mcpJSONKey, Action: Removed, Was: en.Command + " mcp"})
	res.Data = doc.bytes()
	return res, nil
}

func mcpEntryJSON(data []byte, name string) (*MCPEntry, error) {
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc}
	_, servers, i, err := e.mcpJSON(false)
	if err != nil || i < 0 {
		return nil, err
	}
	en, _, err := jsonEntry(e, servers.Members[i].Value)
	return en, err
}
