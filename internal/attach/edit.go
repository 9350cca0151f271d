package attach

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/tailscale/hujson"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// Action is what an edit did to one hook.
type Action string

// The actions of an edit.
const (
	Added   Action = "added"
	Updated Action = "updated"
	Removed Action = "removed"
)

// Change is one thing an edit did.
type Change struct {
	Event  string
	Action Action
	// Was is an updated or removed handler's command before the edit.
	Was string
	// Now is an added or updated handler's command after it.
	Now string
}

// Result is a file's new content and what changed.
type Result struct {
	Data []byte
	// Changes lists what the edit did: updates and removals in file order,
	// then additions in the order of [Hooks]. None means Data is the input
	// unchanged.
	Changes []Change
	// Warnings are things worth telling the user that do not stop the
	// edit, such as Claude Code's disableAllHooks.
	Warnings []string
}

// Entry is one of vigil's hook handlers in a file.
type Entry struct {
	Event string
	// Matcher is its group's "matcher" ("" when there is none).
	Matcher string
	Command string
	// Binary is the command's first word: the vigil binary it runs.
	Binary string
	// URL is an HTTP hook's URL (vigil hookd); Command and Binary are ""
	// then.
	URL     string
	Timeout int
}

// Attach returns data, the content of a hooks file (empty for a new one),
// with vigil's hooks for a installed: one handler running binary on each
// event of [Hooks]. Handlers vigil installed before stay where they are;
// the binary in their command (on every event) and their timeout (on
// vigil's events) are brought up to date, and only missing events are
// added. Errors are [*yamlfile.Error]s naming name, the line and column.
func Attach(data []byte, name string, a Agent, binary string) (*Result, error) {
	return AttachWith(data, name, a, binary, "")
}

// AttachWith is [Attach], with the events of [Hooks] marked HTTP sent to
// hookURL as HTTP hooks when hookURL is not "" (Claude Code only; see
// vigil hookd). Handlers of vigil's of the other kind on those events
// are switched in place; with hookURL "", vigil's HTTP handlers become
// commands again.
func AttachWith(data []byte, name string, a Agent, binary, hookURL string) (*Result, error) {
	if hookURL != "" && a != ClaudeCode {
		return nil, fmt.Errorf("%s has no HTTP hooks: only claude-code does", a)
	}
	if len(Hooks(a)) == 0 {
		return nil, fmt.Errorf("unknown agent %q", a)
	}
	doc, err := parseOrEmpty(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc, st: detectStyle(doc.root)}
	res := &Result{}
	if root, ok := doc.root.Value.(*hujson.Object); ok && a == ClaudeCode {
		if i, err := e.member(root, "disableAllHooks"); err == nil && i >= 0 && string(literal(root.Members[i].Value)) == "true" {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s sets disableAllHooks: Claude Code runs no hook, vigil's included, until it is removed", name))
		}
	}
	hooks, err := e.hooksObject(true)
	if err != nil {
		return nil, err
	}
	var handlers []*handlerRef
	if hooks != nil {
		if handlers, err = e.handlers(hooks, a); err != nil {
			return nil, err
		}
	}
	present := map[string]bool{}
	command := Command(binary, a)
	for _, h := range handlers {
		present[h.event] = true
		want, ours := hookFor(a, h.event)
		wantURL := ""
		if ours && want.HTTP {
			wantURL = hookURL
		}
		was, now, changed := h.describe(), h.describe(), false
		switch {
		case wantURL != "" && h.url != wantURL:
			// A command (or another URL) becomes the HTTP hook.
			h.replace(httpHandler(e.st, h.depth, wantURL, want.Timeout))
			now, changed = wantURL, true
		case wantURL == "" && h.url != "":
			// Back from HTTP to the command.
			h.replace(commandHandler(e.st, h.depth, command, want.Timeout))
			now, changed = command, true
		case h.url == "" && (h.binary != binary || h.fast != IsHookBinary(binary)):
			now, changed = withBinary(h.command, h.end, binary, a), true
			h.handler.Members[h.cmd].Value.Value = hujson.Literal(quoteJSONString(now))
		}
		if ours && setTimeout(e.st, h.handler, h.depth, want.Timeout) {
			changed = true
		}
		if changed {
			res.Changes = append(res.Changes, Change{Event: h.event, Action: Updated, Was: was, Now: now})
		}
	}
	for _, hk := range Hooks(a) {
		if present[hk.Event] {
			continue
		}
		if hooks == nil {
			v := e.st.object(1)
			hooks = v.Value.(*hujson.Object)
			e.st.appendMember(doc.root.Value.(*hujson.Object), 0, e.st.member("hooks", v))
		}
		list, err := e.eventList(hooks, hk.Event)
		if err != nil {
			return nil, err
		}
		if hk.HTTP && hookURL != "" {
			e.st.appendElement(list, 2, e.st.groupWith(3, hk, httpHandler(e.st, 5, hookURL, hk.Timeout)))
			res.Changes = append(res.Changes, Change{Event: hk.Event, Action: Added, Now: hookURL})
			continue
		}
		e.st.appendElement(list, 2, e.st.group(3, hk, command))
		res.Changes = append(res.Changes, Change{Event: hk.Event, Action: Added, Now: command})
	}
	res.Data = data
	if len(res.Changes) > 0 {
		res.Data = doc.bytes()
	}
	return res, nil
}

// Detach returns data with every one of vigil's handlers for a removed,
// and with the groups, events and "hooks" object that this leaves empty.
// Nothing else changes.
func Detach(data []byte, name string, a Agent) (*Result, error) {
	res := &Result{Data: data}
	if len(bytes.TrimSpace(data)) == 0 {
		return res, nil
	}
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc}
	hooks, err := e.hooksObject(false)
	if err != nil || hooks == nil {
		return res, err
	}
	handlers, err := e.handlers(hooks, a)
	if err != nil || len(handlers) == 0 {
		return res, err
	}
	// Remove from the innermost container out, so that emptiness is judged
	// after every handler of a group or event is gone.
	// A hook that moves up its list gets another position; Codex keys hook
	// trust by position, so it will ask for those hooks to be reviewed again.
	var moved []string
	for _, h := range handlers {
		i := elementIndex(h.list, h.handler)
		if i < len(h.list.Elements)-1 && !slices.Contains(moved, h.event) {
			moved = append(moved, h.event)
		}
		removeElement(h.list, i)
		res.Changes = append(res.Changes, Change{Event: h.event, Action: Removed, Was: h.command})
	}
	for _, h := range handlers {
		if len(h.list.Elements) == 0 {
			if i := elementIndex(h.eventList, h.group); i >= 0 {
				if i < len(h.eventList.Elements)-1 && !slices.Contains(moved, h.event) {
					moved = append(moved, h.event)
				}
				removeElement(h.eventList, i)
			}
		}
	}
	if a == Codex {
		for _, ev := range moved {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: other hooks of %s moved up to vigil's place; Codex trusts hooks by position, so /hooks will ask you to review them again", name, ev))
		}
	}
	for _, h := range handlers {
		if len(h.eventList.Elements) == 0 {
			if i := memberIndex(hooks, h.eventList); i >= 0 {
				removeMember(hooks, i)
			}
		}
	}
	if len(hooks.Members) == 0 {
		root := doc.root.Value.(*hujson.Object)
		if i := memberIndex(root, hooks); i >= 0 {
			removeMember(root, i)
		}
	}
	res.Data = doc.bytes()
	return res, nil
}

// Entries lists vigil's handlers for a in data, in file order.
func Entries(data []byte, name string, a Agent) ([]Entry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	e := &editor{name: name, src: data, doc: doc}
	hooks, err := e.hooksObject(false)
	if err != nil || hooks == nil {
		return nil, err
	}
	handlers, err := e.handlers(hooks, a)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, h := range handlers {
		en := Entry{Event: h.event, Command: h.command, Binary: h.binary, URL: h.url}
		if i, _ := e.member(h.group, "matcher"); i >= 0 {
			en.Matcher, _ = str(h.group.Members[i].Value)
		}
		if i, _ := e.member(h.handler, "timeout"); i >= 0 {
			if lit := literal(h.handler.Members[i].Value); lit != nil {
				en.Timeout, _ = strconv.Atoi(string(lit))
			}
		}
		out = append(out, en)
	}
	return out, nil
}

// parseOrEmpty parses data, taking an empty (or blank) file as an empty
// object.
func parseOrEmpty(name string, data []byte) (*document, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &document{root: hujson.Value{Value: &hujson.Object{}, AfterExtra: hujson.Extra("\n")}}, nil
	}
	return parseDocument(name, data)
}

type editor struct {
	name string
	src  []byte
	doc  *document
	st   style
}

// errorAt is an error at v, which was parsed from the source.
func (e *editor) errorAt(v hujson.Value, format string, args ...any) error {
	line, col := lineCol(e.src, v.StartOffset)
	return &yamlfile.Error{File: e.name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// member returns the index of obj's member key (see [member]).
func (e *editor) member(obj *hujson.Object, key string) (int, error) {
	return member(e.name, e.src, obj, key)
}

// hooksObject returns the top-level "hooks" object, nil when there is
// none. The top level must be an object; "hooks" must be an object when
// strict (attach writes into it), and is ignored otherwise.
func (e *editor) hooksObject(strict bool) (*hujson.Object, error) {
	root, ok := e.doc.root.Value.(*hujson.Object)
	if !ok {
		return nil, e.errorAt(e.doc.root, "the file holds %s: want a JSON object", kindName(e.doc.root))
	}
	i, err := e.member(root, "hooks")
	if err != nil || i < 0 {
		return nil, err
	}
	val := root.Members[i].Value
	hooks, ok := val.Value.(*hujson.Object)
	if !ok {
		if strict {
			return nil, e.errorAt(val, "hooks: want an object of events, found %s", kindName(val))
		}
		return nil, nil
	}
	return hooks, nil
}

// eventList returns the list of groups of event in hooks, adding an empty
// one at the end when there is none.
func (e *editor) eventList(hooks *hujson.Object, event string) (*hujson.Array, error) {
	i, err := e.member(hooks, event)
	if err != nil {
		return nil, err
	}
	if i < 0 {
		list := e.st.array(2)
		e.st.appendMember(hooks, 1, e.st.member(event, list))
		return list.Value.(*hujson.Array), nil
	}
	val := hooks.Members[i].Value
	list, ok := val.Value.(*hujson.Array)
	if !ok {
		return nil, e.errorAt(val, "hooks.%s: want a list of groups, found %s", event, kindName(val))
	}
	return list, nil
}

// group makes a group at depth with one handler running command.
func (s style) group(depth int, h Hook, command string) hujson.Value {
	return s.groupWith(depth, h, commandHandler(s, depth+2, command, h.Timeout))
}

// groupWith makes a group at depth for h holding handler.
func (s style) groupWith(depth int, h Hook, handler hujson.Value) hujson.Value {
	var members []hujson.ObjectMember
	if h.Matcher != "" {
		members = append(members, s.member("matcher", scalar(quoteJSONString(h.Matcher))))
	}
	members = append(members, s.member("hooks", s.array(depth+1, handler)))
	return s.object(depth, members...)
}

// commandHandler is a command hook's handler object at depth.
func commandHandler(s style, depth int, command string, timeout int) hujson.Value {
	return s.object(depth,
		s.member("type", scalar(quoteJSONString("command"))),
		s.member("command", scalar(quoteJSONString(command))),
		s.member("timeout", scalar(jsonInt(timeout))))
}

// httpHandler is an HTTP hook's handler object at depth.
func httpHandler(s style, depth int, url string, timeout int) hujson.Value {
	return s.object(depth,
		s.member("type", scalar(quoteJSONString("http"))),
		s.member("url", scalar(quoteJSONString(url))),
		s.member("timeout", scalar(jsonInt(timeout))))
}

// setTimeout makes handler's "timeout" seconds, reporting whether it
// changed anything.
func setTimeout(s style, handler *hujson.Object, depth, seconds int) bool {
	want := jsonInt(seconds)
	for i, m := range handler.Members {
		if keyIs(m.Name, "timeout") {
			if bytes.Equal(literal(m.Value), want) {
				return false
			}
			handler.Members[i].Value.Value = hujson.Literal(want)
			return true
		}
	}
	s.appendMember(handler, depth, s.member("timeout", scalar(want)))
	return true
}

// handlerRef is one of vigil's handlers and the containers around it.
type handlerRef struct {
	event     string
	eventList *hujson.Array // the event's list of groups
	group     *hujson.Object
	list      *hujson.Array // the group's "hooks" list
	handler   *hujson.Object
	depth     int // the handler's depth
	cmd       int // the index of its "command" member
	command   string
	binary    string
	end       int    // where vigil's words (binary, hook, agent) end in command
	fast      bool   // the command runs the hook binary: no "hook" word
	url       string // an HTTP hook's URL ("" for a command)
}

// describe is what the handler runs: its command or its URL.
func (h *handlerRef) describe() string {
	if h.url != "" {
		return h.url
	}
	return h.command
}

// replace puts handler in h's place in its group's list.
func (h *handlerRef) replace(handler hujson.Value) {
	if i := elementIndex(h.list, h.handler); i >= 0 {
		h.list.Elements[i].Value = handler.Value
	}
	h.handler = handler.Value.(*hujson.Object)
}

// handlers finds vigil's handlers for a in hooks, in file order. Values of
// unexpected types are skipped: they hold no handler of vigil's.
func (e *editor) handlers(hooks *hujson.Object, a Agent) ([]*handlerRef, error) {
	var out []*handlerRef
	for _, ev := range hooks.Members {
		groups, ok := ev.Value.Value.(*hujson.Array)
		if !ok {
			continue
		}
		for _, g := range groups.Elements {
			group, ok := g.Value.(*hujson.Object)
			if !ok {
				continue
			}
			i, err := e.member(group, "hooks")
			if err != nil {
				return nil, err
			}
			if i < 0 {
				continue
			}
			list, ok := group.Members[i].Value.Value.(*hujson.Array)
			if !ok {
				continue
			}
			for _, h := range list.Elements {
				handler, ok := h.Value.(*hujson.Object)
				if !ok {
					continue
				}
				ref, err := e.vigilHandler(handler, a)
				if err != nil {
					return nil, err
				}
				if ref == nil {
					continue
				}
				ref.event, ref.eventList, ref.group, ref.list, ref.depth = keyOf(ev.Name), groups, group, list, 5
				out = append(out, ref)
			}
		}
	}
	return out, nil
}

// vigilHandler returns a reference to handler when it is vigil's command
// or HTTP hook for a, and nil otherwise.
func (e *editor) vigilHandler(handler *hujson.Object, a Agent) (*handlerRef, error) {
	typ, err := e.member(handler, "type")
	if err != nil || typ < 0 {
		return nil, err
	}
	switch t, _ := str(handler.Members[typ].Value); t {
	case "http":
		u, err := e.member(handler, "url")
		if err != nil || u < 0 {
			return nil, err
		}
		url, ok := str(handler.Members[u].Value)
		if !ok || !vigilURL(url, a) {
			return nil, nil
		}
		return &handlerRef{handler: handler, cmd: -1, url: url}, nil
	case "command":
	default:
		return nil, nil
	}
	cmd, err := e.member(handler, "command")
	if err != nil || cmd < 0 {
		return nil, err
	}
	command, ok := str(handler.Members[cmd].Value)
	if !ok {
		return nil, nil
	}
	binary, end, fast, ok := vigilBinary(command, a)
	if !ok {
		return nil, nil
	}
	return &handlerRef{handler: handler, cmd: cmd, command: command, binary: binary, end: end, fast: fast}, nil
}

// elementIndex returns the index of the element of list that is v, -1
// when there is none.
func elementIndex(list *hujson.Array, v hujson.ValueTrimmed) int {
	return slices.IndexFunc(list.Elements, func(el hujson.Value) bool { return same(el.Value, v) })
}

// memberIndex returns the index of the member of obj whose value is v, -1
// when there is none.
func memberIndex(obj *hujson.Object, v hujson.ValueTrimmed) int {
	return slices.IndexFunc(obj.Members, func(m hujson.ObjectMember) bool { return same(m.Value.Value, v) })
}

// same tells whether a and b are the same object or list.
func same(a, b hujson.ValueTrimmed) bool {
	switch a.(type) {
	case *hujson.Object, *hujson.Array:
		return a == b
	}
	return false
}
