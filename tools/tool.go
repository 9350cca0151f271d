package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

// Tool is something a model may call.
//
// Definition returns the name, description and argument schema the model
// sees. It must return the same value on every call.
//
// Run performs one call. Implementations must guarantee:
//   - the arguments are validated before anything else happens, and a bad
//     argument (missing, of the wrong type, unknown, out of range) is an
//     error that names the tool and the argument;
//   - a call that could not do its job (bad arguments, a refused or missing
//     path, no match) returns a non-nil error whose text is written for the
//     model, which sees it as an error result;
//   - a call that ran but failed in a way its output explains (a command
//     that exited non-zero or timed out) returns a Result with IsError set
//     and a nil error;
//   - when ctx is cancelled, Run stops its work promptly and returns an
//     error that wraps ctx's error; the Result may still hold the output
//     produced so far;
//   - Run is safe to call from several goroutines at once.
//
// [Invoke] folds both kinds of failure into one Result for the caller.
type Tool interface {
	Definition() llm.Tool
	Run(ctx context.Context, call Call) (Result, error)
}

// Previewer is a tool that can say what a call would change without
// changing anything (write and edit: the path and the diff), so that the
// change can be shown before the user approves it. Preview checks the
// call as Run would and returns Run's error for a call that would fail.
type Previewer interface {
	Preview(ctx context.Context, call Call) (Details, error)
}

// Call is one request from the model to run a tool.
type Call struct {
	// ID is the model's id for the call; the result answers it.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the JSON object of arguments as the model wrote it.
	// Empty means no arguments, the same as {}.
	Arguments json.RawMessage
}

// CallFrom returns the call a tool_call block asks for.
func CallFrom(b llm.Block) Call {
	return Call{ID: b.ID, Name: b.Name, Arguments: b.Arguments}
}

// Result is what a tool call produced.
type Result struct {
	// Content is what the model sees: text and image blocks.
	Content []llm.Block
	// IsError says the call failed; Content explains how.
	IsError bool
	// Details carries structured facts for user interfaces and logs. The
	// model does not see them.
	Details Details
}

// Details are the structured facts of a tool call that a user interface may
// show beside its text. Each tool fills the fields that apply to it.
type Details struct {
	// Path is the file a read, write or edit touched, as resolved.
	Path string `json:"path,omitempty"`
	// Diff is a unified diff of the change an edit or write made.
	Diff string `json:"diff,omitempty"`
	// BytesWritten is the size of the file a write or edit left behind.
	BytesWritten int `json:"bytes_written,omitempty"`
	// ExitCode is the exit code of a bash command that exited; nil when it
	// was killed or never started.
	ExitCode *int `json:"exit_code,omitempty"`
	// TimedOut says a bash command hit its timeout and was killed.
	TimedOut bool `json:"timed_out,omitempty"`
	// Aborted says the call was cut short by its context's end and its
	// result already says so, with the cause: a caller adds no note of
	// its own.
	Aborted bool `json:"aborted,omitempty"`
	// Truncated says the output was cut to fit the limits.
	Truncated bool `json:"truncated,omitempty"`
	// FullOutputPath is the file holding a bash command's whole output when
	// the result shows only its tail.
	FullOutputPath string `json:"full_output_path,omitempty"`
	// Matches counts the matches grep or find reported.
	Matches int `json:"matches,omitempty"`
	// Warnings are notes about the session's knowledge of a file (not read
	// first, changed since read); they are also in Content.
	Warnings []string `json:"warnings,omitempty"`
}

// Block returns the result as the tool_result block answering callID.
func (r Result) Block(callID string) llm.Block {
	return llm.ToolResult(callID, r.IsError, r.Content...)
}

// Text returns the concatenation of the result's text blocks.
func (r Result) Text() string {
	return llm.Message{Content: r.Content}.Text()
}

// Invoke finds the tool the call names in set, runs it and returns a result
// the caller can send back to the model as it is: an unknown tool or an error
// from Run becomes an error result whose text says what went wrong, after any
// output the tool produced before it failed.
func Invoke(ctx context.Context, set []Tool, call Call) Result {
	var names []string
	for _, t := range set {
		def := t.Definition()
		if def.Name != call.Name {
			names = append(names, def.Name)
			continue
		}
		res, err := t.Run(ctx, call)
		if err != nil {
			res.IsError = true
			if !res.Details.Aborted {
				res.Content = append(res.Content, llm.Text(err.Error()))
			}
		}
		return res
	}
	return Result{
		IsError: true,
		Content: []llm.Block{llm.Text("unknown tool " + quote(call.Name) + "; the tools are: " + strings.Join(names, ", "))},
	}
}

// Definitions returns the definitions of the tools in set, in order, for a
// model request.
func Definitions(set []Tool) []llm.Tool {
	defs := make([]llm.Tool, len(set))
	for i, t := range set {
		defs[i] = t.Definition()
	}
	return defs
}

func textResult(s string) Result {
	return Result{Content: []llm.Block{llm.Text(s)}}
}
