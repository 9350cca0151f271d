package rules

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/transcript"
)

// Kind says what an action does, coarsely.
type Kind uint8

// The kinds of action. A shell command gets the kind of what it does: cat
// is a read, grep a search, sed -i an edit; anything that runs a program
// is a shell action.
const (
	KindOther Kind = iota
	KindRead
	KindSearch
	KindEdit
	KindShell
)

var kindNames = [...]string{"other", "read", "search", "edit", "shell"}

// String returns the kind's name: "shell", "read", "search", "edit" or
// "other".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "other"
}

// EditOp says how an edit changes a file.
type EditOp uint8

// The edit operations.
const (
	// EditWrite replaces the whole file with New.
	EditWrite EditOp = iota
	// EditAppend adds New to the file.
	EditAppend
	// EditReplace replaces the text Old with New (str_replace tools,
	// sed s/Old/New/, one file of a patch).
	EditReplace
	// EditLines replaces the lines Old ("10:12") with New (SWE-agent's
	// edit command).
	EditLines
	// EditScript changes the file in a way the action does not show (a
	// sed script, a patch file, a program that writes it); New identifies
	// the change.
	EditScript
	// EditCopy gives the file the content of From (cp, mv).
	EditCopy
	// EditRestore discards the file's changes (git checkout, git
	// restore); an empty Path means every file (git stash, reset --hard).
	EditRestore
	// EditUndo undoes the file's last edit (str_replace_editor undo_edit).
	EditUndo
	// EditDelete removes the file.
	EditDelete
)

// Edit is one change an action makes to one file.
type Edit struct {
	Path string
	Op   EditOp
	// Old and New are the text replaced and its replacement; for a write,
	// New is the content.
	Old, New string
	// From is the source of a copy.
	From string
}

// Action is one tool call with its result, reduced to what detectors
// need, whatever the agent's tool shapes.
type Action struct {
	// Tool is the call's tool name as recorded.
	Tool string
	// Kind is what the action does.
	Kind Kind
	// Command is the shell command, or for other tools a one-line
	// rendering of the call such as "read path/to/file".
	Command string
	// Path is the first file the action reads or edits, when known.
	Path string
	// Edits are the files the action changes, in order.
	Edits []Edit
	// Test is set when the action runs tests; Run when it runs a program,
	// a script or inline code (every test run is also a run).
	Test, Run bool
	// Background is set when the call starts a job that goes on after it
	// returns: a command line that ends in & or starts with nohup or
	// setsid, a command the harness was asked to run in the background
	// (run_in_background), or one the harness answers is still running
	// (Claude Code's "Command running in background", Codex's "Process
	// running with session ID").
	Background bool
	// Failed is set when the result is an error: the tool result says so,
	// or its text shows a non-zero exit code, or (for runs whose exit code
	// is hidden behind a pipe) it ends in a traceback or failing tests.
	Failed bool
	// Refused is set when the harness rejected the call and ran nothing: a
	// tool it does not have, arguments it could not parse or validate (a
	// failed result in the words format-errors knows). A refused action
	// has Failed set and Run and Test clear, and makes no edits; Kind,
	// Command and Path say what it asked for.
	Refused bool
	// ExitCode is the exit code the result shows; -1 when it shows none.
	ExitCode int
	// Output is the text of the result.
	Output string
	// Answered is set when the call has a result.
	Answered bool
	// Empty is set when the result holds nothing but the harness's words
	// for no output ("(no output)", "Your command ran successfully and did
	// not produce any output.", an exit-status line).
	Empty bool

	// facts about shell commands that detectors share
	canonical string
	env       sig
	bare      string
	install   bool
	polls     bool
	scripts   []string
	code      string
	paths     []string
}

// Actions returns the actions of a step: one per tool call of its reply,
// in order, each with the result that answers it.
func Actions(st *transcript.Step) []Action {
	var scratch []byte
	return appendActions(nil, st, &scratch)
}

// appendActions appends the actions of a step to dst; with no calls it
// returns dst as it is. scratch is a buffer it may reuse.
func appendActions(dst []Action, st *transcript.Step, scratch *[]byte) []Action {
	m := st.Message()
	if m == nil {
		return dst
	}
	for _, c := range m.Message.Content {
		if c.Type != llm.BlockToolCall {
			continue
		}
		res, ok := st.Result(c.ID)
		dst = append(dst, newAction(c, res, ok, scratch))
	}
	return dst
}

// callCount returns how many tool calls a step's reply makes.
func callCount(st *transcript.Step) int {
	m := st.Message()
	if m == nil {
		return 0
	}
	n := 0
	for _, c := range m.Message.Content {
		if c.Type == llm.BlockToolCall {
			n++
		}
	}
	return n
}

// callArgs holds the argument names that the tool shapes vigil knows use.
// encoding/json matches names case-insensitively, so `path` also reads
// `Path`.
type callArgs struct {
	Command    json.RawMessage `json:"command"`
	Cmd        json.RawMessage `json:"cmd"`
	Raw        string          `json:"raw"`
	Path       string          `json:"path"`
	FilePath   string          `json:"file_path"`
	Filename   string          `json:"filename"`
	TargetFile string          `json:"target_file"`
	OldString  string          `json:"old_string"`
	OldStr     string          `json:"old_str"`
	OldText    string          `json:"old_text"`
	OldText2   string          `json:"oldText"`
	NewString  string          `json:"new_string"`
	NewStr     string          `json:"new_str"`
	NewText    string          `json:"new_text"`
	NewText2   string          `json:"newText"`
	FileText   string          `json:"file_text"`
	Content    string          `json:"content"`
	Input      string          `json:"input"`
	Patch      string          `json:"patch"`
	Pattern    string          `json:"pattern"`
	Query      string          `json:"query"`
	// Search and Replace are SWE-agent's edit (windowed_edit_replace),
	// which edits the open file.
	Search  string `json:"search"`
	Replace string `json:"replace"`
	// RunInBackground is Claude Code's Bash asking for a background job.
	RunInBackground bool `json:"run_in_background"`
	Edits           []struct {
		Old  string `json:"old_string"`
		New  string `json:"new_string"`
		Old2 string `json:"oldText"`
		New2 string `json:"newText"`
	} `json:"edits"`
	// command and cmd are Command and Cmd as text.
	command, cmd string
}

// decodeArgs reads a call's arguments: by hand when they are a flat
// object of strings, else through encoding/json.
func decodeArgs(raw json.RawMessage) callArgs {
	var a callArgs
	o := flatObject{raw: raw}
	for o.next() {
		switch string(o.key) {
		case "command":
			a.command = o.value()
		case "cmd":
			a.cmd = o.value()
		case "raw":
			a.Raw = o.value()
		case "path":
			a.Path = o.value()
		case "file_path":
			a.FilePath = o.value()
		case "filename":
			a.Filename = o.value()
		case "target_file":
			a.TargetFile = o.value()
		case "old_string":
			a.OldString = o.value()
		case "old_str":
			a.OldStr = o.value()
		case "old_text":
			a.OldText = o.value()
		case "oldText":
			a.OldText2 = o.value()
		case "new_string":
			a.NewString = o.value()
		case "new_str":
			a.NewStr = o.value()
		case "new_text":
			a.NewText = o.value()
		case "newText":
			a.NewText2 = o.value()
		case "file_text":
			a.FileText = o.value()
		case "content":
			a.Content = o.value()
		case "input":
			a.Input = o.value()
		case "patch":
			a.Patch = o.value()
		case "pattern":
			a.Pattern = o.value()
		case "query":
			a.Query = o.value()
		case "search":
			a.Search = o.value()
		case "replace":
			a.Replace = o.value()
		}
	}
	ok := o.ok()
	if !ok {
		// Into a variable of its own, so that only this path allocates it.
		var d callArgs
		_ = json.Unmarshal(raw, &d)
		d.command, d.cmd = commandText(d.Command), commandText(d.Cmd)
		return d
	}
	return a
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// newAction derives the action of a call and its result; scratch is a
// buffer it may reuse.
func newAction(call, res llm.Block, answered bool, scratch *[]byte) Action {
	a := Action{Tool: call.Name, ExitCode: -1, Answered: answered}
	openFile := ""
	if answered {
		a.Output, openFile = cutSWEState(resultText(res))
	}
	args := decodeArgs(call.Arguments)
	p := firstOf(args.Path, args.FilePath, args.Filename, args.TargetFile)
	name := strings.ToLower(call.Name)
	cmd := firstOf(args.command, args.cmd)

	switch {
	case isEditorTool(name) && cmd != "" && !strings.ContainsAny(cmd, " \n"):
		// str_replace_editor {command: view|create|str_replace|insert|undo_edit, path, …}
		a.editorCall(cmd, p, args)
	case isShellTool(name) || cmd != "" && !isEditTool(name) && !isWriteTool(name):
		if cmd == "" {
			cmd = args.Raw
		}
		a.shell(cmd)
	case name == "apply_patch" || strings.HasSuffix(name, "apply_patch"):
		body := firstOf(args.Input, args.Patch, cmd, args.Raw)
		a.Kind, a.Command = KindEdit, "apply_patch"
		a.Edits = parseApplyPatch(body)
	case isEditTool(name):
		a.Kind, a.Path = KindEdit, p
		a.Command = "edit " + p
		if len(args.Edits) > 0 {
			for _, e := range args.Edits {
				a.Edits = append(a.Edits, Edit{Path: p, Op: EditReplace, Old: firstOf(e.Old, e.Old2), New: firstOf(e.New, e.New2)})
			}
		} else {
			a.Edits = []Edit{{Path: p, Op: EditReplace,
				Old: firstOf(args.OldString, args.OldStr, args.OldText, args.OldText2, args.Search),
				New: firstOf(args.NewString, args.NewStr, args.NewText, args.NewText2, args.Replace)}}
		}
	case isWriteTool(name):
		a.Kind, a.Path = KindEdit, p
		a.Command = "write " + p
		a.Edits = []Edit{{Path: p, Op: EditWrite, New: firstOf(args.Content, args.FileText)}}
	case isReadTool(name):
		a.Kind, a.Path = KindRead, p
		a.Command = describeCall("read ", p, call.Arguments)
		a.paths = []string{p}
	case isSearchTool(name):
		a.Kind, a.Path = KindSearch, p
		a.Command = describeCall(name, "", call.Arguments)
	default:
		a.Kind, a.Path = KindOther, p
		a.Command = describeCall(call.Name, "", call.Arguments)
	}
	for i := range a.Edits {
		if a.Edits[i].Op == EditLines && a.Edits[i].Path == "" {
			a.Edits[i].Path = openFile // the file SWE-agent's edit N:M changed
		}
	}
	if a.Path == "" && len(a.Edits) > 0 {
		a.Path = a.Edits[0].Path
	}
	if a.canonical == "" {
		a.canonical = a.Command
	}
	if args.RunInBackground {
		a.Background = true
	}
	a.Failed = answered && res.IsError
	if answered {
		a.judge()
		a.Background = a.Background || a.Kind == KindShell && stillRunning(a.Output)
		a.Empty = noOutput(a.Output)
		if a.Failed && (rejects(scratch, a.Output, refusalLimit) || harnessRefused(a.Output)) {
			a.refuse()
		}
	}
	return a
}

// refusalLimit is how long a tool result that rejects the call may be: a
// harness's rejection is a short message, while a program's long output
// may quote such words.
const refusalLimit = 600

// refuse marks an action whose call the harness rejected: it ran nothing
// and changed nothing.
func (a *Action) refuse() {
	a.Refused = true
	a.Run, a.Test, a.Background, a.Edits = false, false, false, nil
	a.install, a.polls = false, false
	a.scripts, a.code, a.paths = nil, "", nil
}

func (a *Action) shell(cmd string) {
	f := analyseShell(cmd)
	a.Kind, a.Command = f.kind, cmd
	a.Test, a.Run = f.test, f.run
	a.Background = inBackground(cmd, f)
	a.Edits = f.edits
	a.canonical, a.env, a.bare, a.install, a.polls = f.canonical, f.env, f.bare, f.install, f.polls
	a.scripts, a.code, a.paths = f.scripts, f.code, f.paths
	switch {
	case len(f.edits) > 0:
		a.Path = f.edits[0].Path
	case len(f.paths) > 0:
		a.Path = f.paths[0]
	}
}

// cutSWEState returns out without the state SWE-agent's windowed tools
// end an observation with ("(Open file: F)", "(Current directory: D)",
// "bash-$"), and the open file it names ("" for n/a). The state is the
// same after every command, so left in, it would be every output's last
// lines and hide how the command ended.
func cutSWEState(out string) (rest, openFile string) {
	trimmed := strings.TrimRight(out, " \r\n")
	if !strings.HasSuffix(trimmed, "bash-$") {
		return out, ""
	}
	i := strings.LastIndex(trimmed, "(Open file: ")
	if i < 0 || i > 0 && trimmed[i-1] != '\n' {
		return out, ""
	}
	lines := strings.Split(strings.ReplaceAll(trimmed[i:], "\r\n", "\n"), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], ")") || !strings.HasPrefix(lines[1], "(Current directory: ") || lines[2] != "bash-$" {
		return out, ""
	}
	openFile = strings.TrimSuffix(strings.TrimPrefix(lines[0], "(Open file: "), ")")
	if openFile == "n/a" {
		openFile = ""
	}
	return strings.TrimRight(trimmed[:i], "\r\n"), openFile
}

// inBackground reports whether a shell line starts a job that goes on
// after the line returns. The parsed line drops a trailing &; the bare
// line, without here-document bodies, keeps the operators between
// commands.
func inBackground(raw string, f shellFacts) bool {
	raw = strings.TrimSpace(raw)
	return strings.HasSuffix(raw, "&") && !strings.HasSuffix(raw, "&&") ||
		strings.Contains(f.bare, " & ") || strings.HasPrefix(f.canonical, "nohup ") || strings.HasPrefix(f.canonical, "setsid ")
}

// stillRunning reports whether a result is the harness saying the command
// goes on in the background: Claude Code's answer to run_in_background or
// to a command it moved to the background, Codex's exec session left
// running when the call returned.
func stillRunning(out string) bool {
	if strings.HasPrefix(out, "Command running in background with ID: ") {
		return true
	}
	head := out[:min(len(out), 200)]
	return strings.Contains(head, "Process running with session ID ")
}

func (a *Action) editorCall(sub, p string, args callArgs) {
	a.Path = p
	a.Command = sub + " " + p
	switch sub {
	case "view":
		a.Kind = KindRead
		a.paths = []string{p}
		a.Command = "view " + p
	case "create":
		a.Kind = KindEdit
		a.Edits = []Edit{{Path: p, Op: EditWrite, New: firstOf(args.FileText, args.Content)}}
	case "str_replace":
		a.Kind = KindEdit
		a.Edits = []Edit{{Path: p, Op: EditReplace, Old: firstOf(args.OldStr, args.OldString), New: firstOf(args.NewStr, args.NewString)}}
	case "insert":
		a.Kind = KindEdit
		a.Edits = []Edit{{Path: p, Op: EditAppend, New: firstOf(args.NewStr, args.NewString)}}
	case "undo_edit":
		a.Kind = KindEdit
		a.Edits = []Edit{{Path: p, Op: EditUndo}}
	default:
		a.Kind = KindOther
	}
}

func isShellTool(n string) bool {
	switch n {
	case "bash", "shell", "exec_command", "execute_bash", "execute_command", "run_command", "run_shell_command",
		"terminal", "cmd", "local_shell", "run_terminal_cmd", "container.exec", "sh", "zsh", "powershell":
		return true
	}
	return false
}

func isEditorTool(n string) bool {
	return n == "str_replace_editor" || n == "str_replace_based_edit_tool" || n == "text_editor" || n == "editor" ||
		n == "file_editor" // the OpenHands SDK's
}

func isEditTool(n string) bool {
	switch n {
	case "edit", "str_replace", "replace", "edit_file", "search_replace", "multiedit", "multi_edit", "replace_in_file":
		return true
	}
	return isEditorTool(n)
}

func isWriteTool(n string) bool {
	switch n {
	case "write", "write_file", "create_file", "create", "write_to_file", "notebookedit":
		return true
	}
	return false
}

func isReadTool(n string) bool {
	switch n {
	case "read", "read_file", "view", "view_file", "cat", "open_file", "notebookread", "read_many_files", "fetch", "webfetch":
		return true
	}
	return false
}

func isSearchTool(n string) bool {
	switch n {
	case "grep", "glob", "find", "ls", "list", "list_dir", "list_directory", "search", "codebase_search",
		"file_search", "rg", "ripgrep", "search_files", "find_files", "websearch", "web_search":
		return true
	}
	return false
}

// compactJSON renders arguments on one line, bounded: their words
// (strings.Fields) joined by single spaces, at most 400 bytes of them.
func compactJSON(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 400 {
		s = s[:400]
	}
	return s
}

// describeCall returns head, tail, a space and the compactJSON rendering
// of the arguments, built in one allocation when the arguments are ASCII.
func describeCall(head, tail string, raw json.RawMessage) string {
	const limit = 400
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 1 + min(len(raw), limit))
	b.WriteString(head)
	b.WriteString(tail)
	b.WriteByte(' ')
	start := b.Len()
	space := false // a separator is due before the next word
	for _, c := range raw {
		if c >= utf8.RuneSelf {
			// strings.Fields knows the Unicode spaces.
			return head + tail + " " + compactJSON(raw)
		}
		if asciiSpace[c] {
			space = b.Len() > start
			continue
		}
		if b.Len()-start >= limit {
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
			if b.Len()-start >= limit {
				break
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// asciiSpace marks the ASCII bytes that strings.Fields splits on.
var asciiSpace = [256]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// resultText joins the text blocks of a tool result.
func resultText(b llm.Block) string {
	if len(b.Content) == 1 {
		return b.Content[0].Text
	}
	var sb strings.Builder
	for _, c := range b.Content {
		if c.Type == llm.BlockText {
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(c.Text)
		}
	}
	if sb.Len() == 0 {
		return b.Text
	}
	return sb.String()
}
