// Package mcp is vigil's MCP server (`vigil mcp`): over stdio it offers
// an attached agent (Claude Code, Codex) the ask_advisor tool, and sends
// each question to the advisor that watches the agent's session, its
// sidecar ([sidecar.Ask]). With no sidecar, or one whose advisor cannot
// answer, the tool says at once that the advisor is unavailable.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// ServerName is the name the server gives itself, and the name attach
// registers it under, so Claude Code calls the tool
// mcp__vigil__ask_advisor.
const ServerName = "vigil"

// New returns the MCP server: one tool, ask_advisor
// ([advisor.AskDefinition]), answered by ask.
func New(version string, ask advisor.Consulter) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: ServerName, Title: "vigil advisor", Version: version}, nil)
	def := advisor.AskDefinition()
	s.AddTool(&sdk.Tool{Name: def.Name, Description: def.Description, InputSchema: def.Schema}, handler(ask))
	return s
}

// Serve runs the server over in and out (the stdio of `vigil mcp`),
// newline-delimited JSON-RPC, until the client goes or ctx ends. It
// closes neither.
//
// A bad frame (a line that is not JSON, a batch, an invalid message, a
// line over 4 MiB) gets a JSON-RPC error and the server goes on (see
// frameGuard). When ctx ends, a consult in flight is cancelled and Serve
// returns without waiting for its answer.
func Serve(ctx context.Context, version string, ask advisor.Consulter, in io.Reader, out io.Writer) error {
	w := &lockedWriter{w: out}
	t := &sdk.IOTransport{Reader: io.NopCloser(newFrameGuard(in, w, maxFrame)), Writer: w}
	if err := New(version, stopWith(ctx, ask)).Run(ctx, t); err != nil && ctx.Err() == nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// stopWith returns ask, cancelled also when stop ends. The SDK gives a
// call's handler a context that the server's end does not cancel, and at
// that end waits for the calls in flight: without this, a consult pending
// at SIGTERM would hold `vigil mcp` until the advisor answered (or the
// CLI's grace after the signal ran out).
func stopWith(stop context.Context, ask advisor.Consulter) advisor.Consulter {
	return func(ctx context.Context, question string) (string, error) {
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(stop, func() { cancel(context.Cause(stop)) })()
		return ask(ctx, question)
	}
}

// handler answers one ask_advisor call: the answer as text, or an error
// result saying why there is none, worded for the model.
func handler(ask advisor.Consulter) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		q, err := advisor.ParseQuestion(req.Params.Arguments)
		if err != nil {
			return errorResult(err.Error()), nil
		}
		answer, err := ask(ctx, q)
		if err != nil {
			return errorResult(why(err)), nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: answer}}}, nil
	}
}

// why words a consult's failure for the model.
func why(err error) string {
	if errors.Is(err, sidecar.ErrUnavailable) {
		reason := strings.TrimPrefix(strings.TrimPrefix(err.Error(), sidecar.ErrUnavailable.Error()), ": ")
		if reason == "" {
			return "The advisor is unavailable. Go on with your own judgement."
		}
		return "The advisor is unavailable (" + reason + "). Go on with your own judgement."
	}
	return advisor.ConsultError(errors.New(err.Error()))
}

func errorResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// SidecarAsker asks the sidecar find names at each call (one may start
// after the server), and is unavailable at once when it names none.
func SidecarAsker(find func() (sidecar.Info, bool)) advisor.Consulter {
	return func(ctx context.Context, question string) (string, error) {
		in, ok := find()
		if !ok {
			return "", fmt.Errorf("%w: no vigil sidecar watches this session (vigil attach installs its hooks, and the first hook starts it)", sidecar.ErrUnavailable)
		}
		return sidecar.Ask(ctx, in.Socket, question)
	}
}
