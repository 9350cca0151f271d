package attach

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

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
	if a == ClaudeCode {
		if it, err := doc.root.member(name, data, "disableAllHooks"); err == nil && it != nil && string(it.val.raw) == "true" {
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
			replaceHandler(e.st, h, httpHandler(e.st, h.depth, wantURL, want.Timeout))
			now, changed = wantURL, true
		case wantURL == "" && h.url != "":
			// Back from HTTP to the command.
			replaceHandler(e.st, h, commandHandler(e.st, h.depth, command, want.Timeout))
			now, changed = command, true
		case h.url == "" && h.binary != binary:
			now, changed = withBinary(h.command, h.end, binary), true
			h.cmd.val = scalar(quoteJSONString(now))
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
			hooks = e.st.object(1)
			e.st.appendItem(doc.root, 0, e.st.member("hooks", hooks))
		}
		list, err := e.eventList(hooks, hk.Event)
		if err != nil {
			return nil, err
		}
		if hk.HTTP && hookURL != "" {
			e.st.appendItem(list, 2, &item{val: e.st.groupWith(3, hk, httpHandler(e.st, 5, hookURL, hk.Timeout))})
			res.Changes = append(res.Changes, Change{Event: hk.Event, Action: Added, Now: hookURL})
			continue
		}
		e.st.appendItem(list, 2, &item{val: e.st.group(3, hk, command)})
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
		i := indexOf(h.list.items, h.handler)
		if i < len(h.list.items)-1 && !slices.Contains(moved, h.event) {
			moved = append(moved, h.event)
		}
		removeItem(h.list, i)
		res.Changes = append(res.Changes, Change{Event: h.event, Action: Removed, Was: h.command})
	}
	for _, h := range handlers {
		if len(h.list.items) == 0 {
			if i := indexOf(h.eventList.items, h.group); i >= 0 {
				if i < len(h.eventList.items)-1 && !slices.Contains(moved, h.event) {
					moved = append(moved, h.event)
				}
				removeItem(h.eventList, i)
			}
		}
	}
	if a == Codex {
		for _, ev := range moved {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: other hooks of %s moved up to vigil's place; Codex trusts hooks by position, so /hooks will ask you to review them again", name, ev))
		}
	}
	for _, h := range handlers {
		if len(h.eventList.items) == 0 {
			if i := indexOf(hooks.items, h.eventList); i >= 0 {
				removeItem(hooks, i)
			}
		}
	}
	if len(hooks.items) == 0 {
		if i := indexOf(doc.root.items, hooks); i >= 0 {
			removeItem(doc.root, i)
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
		if m, _ := h.group.member(name, data, "matcher"); m != nil {
			en.Matcher, _ = m.val.str()
		}
		if t, _ := h.handler.member(name, data, "timeout"); t != nil && t.val.kind == scalarKind {
			en.Timeout, _ = strconv.Atoi(string(t.val.raw))
		}
		out = append(out, en)
	}
	return out, nil
}

// parseOrEmpty parses data, taking an empty (or blank) file as an empty
// object.
func parseOrEmpty(name string, data []byte) (*document, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return &document{root: &node{kind: objectKind, pos: -1}, tail: []byte("\n")}, nil
	}
	return parseDocument(name, data)
}

type editor struct {
	name string
	src  []byte
	doc  *document
	st   style
}

func (e *editor) errorAt(pos int, format string, args ...any) error {
	err := &yamlfile.Error{File: e.name, Msg: fmt.Sprintf(format, args...)}
	if pos >= 0 {
		err.Line, err.Column = lineCol(e.src, pos)
	}
	return err
}

// hooksObject returns the top-level "hooks" object, nil when there is
// none. The top level must be an object; "hooks" must be an object when
// strict (attach writes into it), and is ignored otherwise.
func (e *editor) hooksObject(strict bool) (*node, error) {
	root := e.doc.root
	if root.kind != objectKind {
		return nil, e.errorAt(root.pos, "the file holds %s: want a JSON object", root.kindName())
	}
	it, err := root.member(e.name, e.src, "hooks")
	if err != nil || it == nil {
		return nil, err
	}
	if it.val.kind != objectKind {
		if strict {
			return nil, e.errorAt(it.val.pos, "hooks: want an object of events, found %s", it.val.kindName())
		}
		return nil, nil
	}
	return it.val, nil
}

// eventList returns the list of groups of event in hooks, adding an empty
// one at the end when there is none.
func (e *editor) eventList(hooks *node, event string) (*node, error) {
	it, err := hooks.member(e.name, e.src, event)
	if err != nil {
		return nil, err
	}
	if it == nil {
		list := e.st.array(2)
		e.st.appendItem(hooks, 1, e.st.member(event, list))
		return list, nil
	}
	if it.val.kind != arrayKind {
		return nil, e.errorAt(it.val.pos, "hooks.%s: want a list of groups, found %s", event, it.val.kindName())
	}
	return it.val, nil
}

// group makes a group at depth with one handler running command.
func (s style) group(depth int, h Hook, command string) *node {
	return s.groupWith(depth, h, commandHandler(s, depth+2, command, h.Timeout))
}

// groupWith makes a group at depth for h holding handler.
func (s style) groupWith(depth int, h Hook, handler *node) *node {
	var members []*item
	if h.Matcher != "" {
		members = append(members, s.member("matcher", scalar(quoteJSONString(h.Matcher))))
	}
	members = append(members, s.member("hooks", s.array(depth+1, handler)))
	return s.object(depth, members...)
}

// commandHandler is a command hook's handler object at depth.
func commandHandler(s style, depth int, command string, timeout int) *node {
	return s.object(depth,
		s.member("type", scalar(quoteJSONString("command"))),
		s.member("command", scalar(quoteJSONString(command))),
		s.member("timeout", scalar(jsonInt(timeout))))
}

// httpHandler is an HTTP hook's handler object at depth.
func httpHandler(s style, depth int, url string, timeout int) *node {
	return s.object(depth,
		s.member("type", scalar(quoteJSONString("http"))),
		s.member("url", scalar(quoteJSONString(url))),
		s.member("timeout", scalar(jsonInt(timeout))))
}

// setTimeout makes handler's "timeout" seconds, reporting whether it
// changed anything.
func setTimeout(s style, handler *node, depth, seconds int) bool {
	want := jsonInt(seconds)
	for _, it := range handler.items {
		if it.key == "timeout" {
			if bytes.Equal(it.val.raw, want) {
				return false
			}
			it.val = scalar(want)
			return true
		}
	}
	s.appendItem(handler, depth, s.member("timeout", scalar(want)))
	return true
}

// handlerRef is one of vigil's handlers and the containers around it.
type handlerRef struct {
	event     string
	eventList *node // the event's list of groups
	group     *node
	list      *node // the group's "hooks" list
	handler   *node
	depth     int   // the handler's depth
	cmd       *item // its "command" member
	command   string
	binary    string
	end       int    // where the binary's word ends in command
	url       string // an HTTP hook's URL ("" for a command)
}

// describe is what the handler runs: its command or its URL.
func (h *handlerRef) describe() string {
	if h.url != "" {
		return h.url
	}
	return h.command
}

// replaceHandler puts handler in h's place in its group's list.
func replaceHandler(s style, h *handlerRef, handler *node) {
	if i := indexOf(h.list.items, h.handler); i >= 0 {
		h.list.items[i].val = handler
	}
	h.handler = handler
}

// handlers finds vigil's handlers for a in hooks, in file order. Values of
// unexpected types are skipped: they hold no handler of vigil's.
func (e *editor) handlers(hooks *node, a Agent) ([]*handlerRef, error) {
	var out []*handlerRef
	for _, ev := range hooks.items {
		if ev.val.kind != arrayKind {
			continue
		}
		for _, g := range ev.val.items {
			if g.val.kind != objectKind {
				continue
			}
			hs, err := g.val.member(e.name, e.src, "hooks")
			if err != nil {
				return nil, err
			}
			if hs == nil || hs.val.kind != arrayKind {
				continue
			}
			for _, h := range hs.val.items {
				if h.val.kind != objectKind {
					continue
				}
				ref, err := e.vigilHandler(h.val, a)
				if err != nil {
					return nil, err
				}
				if ref == nil {
					continue
				}
				ref.event, ref.eventList, ref.group, ref.list, ref.depth = ev.key, ev.val, g.val, hs.val, 5
				out = append(out, ref)
			}
		}
	}
	return out, nil
}

// vigilHandler returns a reference to handler when it is vigil's command
// hook for a, and nil otherwise.
func (e *editor) vigilHandler(handler *node, a Agent) (*handlerRef, error) {
	typ, err := handler.member(e.name, e.src, "type")
	if err != nil {
		return nil, err
	}
	if typ == nil {
		return nil, nil
	}
	switch t, _ := typ.val.str(); t {
	case "http":
		u, err := handler.member(e.name, e.src, "url")
		if err != nil || u == nil {
			return nil, err
		}
		url, ok := u.val.str()
		if !ok || !vigilURL(url, a) {
			return nil, nil
		}
		return &handlerRef{handler: handler, url: url}, nil
	case "command":
	default:
		return nil, nil
	}
	cmd, err := handler.member(e.name, e.src, "command")
	if err != nil || cmd == nil {
		return nil, err
	}
	command, ok := cmd.val.str()
	if !ok {
		return nil, nil
	}
	binary, end, ok := vigilBinary(command, a)
	if !ok {
		return nil, nil
	}
	return &handlerRef{handler: handler, cmd: cmd, command: command, binary: binary, end: end}, nil
}

func indexOf(items []*item, v *node) int {
	for i, it := range items {
		if it.val == v {
			return i
		}
	}
	return -1
}
