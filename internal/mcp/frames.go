package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxFrame bounds one inbound JSON-RPC frame (one line). An ask_advisor
// question, and anything else an agent sends this server, is far
// smaller.
const maxFrame = 4 << 20

// frameGuard is the server's input as the SDK's transport reads it: the
// lines of in that hold one JSON-RPC message each, passed on whole, one a
// line. The SDK's stdio transport ends the session at the first frame it
// cannot decode (a line that is not JSON, a batch, an id that is an
// object, a line longer than its bound), and the agent would lose
// ask_advisor for the rest of its session over one bad line; so each such
// line is answered here, with the JSON-RPC error for it (-32700 parse
// error, -32600 invalid request) written to out, and left out. Blank
// lines are skipped. A line longer than max is read past in pieces, never
// held whole.
//
// Read is called by the transport's one reading goroutine; the answers
// share out with the transport's writes through lockedWriter.
type frameGuard struct {
	in  *bufio.Reader
	out io.Writer
	max int

	lineNo  int    // the input line last read, from 1
	line    []byte // the line being read
	pending []byte // a frame (with its newline) not yet read out
	err     error  // what ends the input, once met
}

func newFrameGuard(in io.Reader, out io.Writer, max int) *frameGuard {
	return &frameGuard{in: bufio.NewReaderSize(in, 64<<10), out: out, max: max}
}

// Read implements [io.Reader].
func (g *frameGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// next reads one line, and queues it as a frame or answers it.
func (g *frameGuard) next() {
	size, err := g.readLine()
	if err != nil {
		g.err = err
		if size == 0 {
			return
		}
	}
	g.lineNo++
	if size > g.max {
		g.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: the frame on input line %d is too large (%d bytes, over the %d this server takes); it was skipped", g.lineNo, size, g.max))
		return
	}
	frame := bytes.TrimSpace(g.line)
	if len(frame) == 0 {
		return
	}
	if !json.Valid(frame) {
		var v any
		detail := json.Unmarshal(frame, &v)
		g.answer(nil, jsonrpc.CodeParseError, fmt.Sprintf("parse error: input line %d is not one JSON value (%v)", g.lineNo, detail))
		return
	}
	if frame[0] == '[' {
		g.answer(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: input line %d is a batch, which this server does not take (MCP 2025-06-18 dropped batching): send each message on its own line", g.lineNo))
		return
	}
	if _, err := jsonrpc.DecodeMessage(frame); err != nil {
		g.answer(requestID(frame), jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: input line %d is not a JSON-RPC 2.0 message (%v)", g.lineNo, err))
		return
	}
	g.pending = append(frame, '\n')
}

// readLine reads the next line into g.line, without its newline, and
// returns its size. Of a line longer than g.max it keeps nothing, reads
// on to its end and returns its size all the same.
func (g *frameGuard) readLine() (size int, err error) {
	if cap(g.line) > 256<<10 {
		g.line = nil // a large frame's room is not kept for the small ones
	}
	g.line = g.line[:0]
	for {
		chunk, err := g.in.ReadSlice('\n')
		size += len(chunk)
		if size <= g.max+1 {
			if size > cap(g.line) {
				// Doubling, capped at the bound: a frame costs at most
				// twice the bound, whatever append's growth would be.
				grown := make([]byte, len(g.line), min(max(2*cap(g.line), size), g.max+1))
				copy(grown, g.line)
				g.line = grown
			}
			g.line = append(g.line, chunk...)
		} else {
			g.line = g.line[:0]
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(g.line) > 0 && g.line[len(g.line)-1] == '\n' {
			g.line = g.line[:len(g.line)-1]
			size--
		}
		return size, err
	}
}

// answer writes a JSON-RPC error response for a frame the SDK is not
// given: to the request's id where the frame names a valid one, else to
// null, as JSON-RPC 2.0 says for a request whose id cannot be read.
func (g *frameGuard) answer(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}}
	b, err := json.Marshal(resp)
	if err == nil {
		_, err = g.out.Write(append(b, '\n'))
	}
	if err != nil {
		g.err = fmt.Errorf("answer the bad frame on input line %d: %w", g.lineNo, err)
	}
}

// requestID returns the id of a JSON object frame, if it is a valid
// JSON-RPC id (a string or a number), else nil.
func requestID(frame []byte) json.RawMessage {
	var m map[string]json.RawMessage // "id" exactly, as JSON-RPC spells it
	if json.Unmarshal(frame, &m) != nil || len(m["id"]) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m["id"], &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m["id"]
	}
	return nil
}

// lockedWriter serialises whole writes to w: the transport writes each
// message in one Write, and so does frameGuard.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write implements [io.Writer].
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close implements [io.Closer]; it leaves w open (the transport closes
// its writer when the session ends; stdout is not the server's to close).
func (l *lockedWriter) Close() error { return nil }
