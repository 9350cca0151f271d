package rpc

import (
	"encoding/json"
	"io"
	"sync"
)

// LineWriter writes values as JSON lines, one writer at a time.
type LineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLineWriter writes JSON lines to w.
func NewLineWriter(w io.Writer) *LineWriter {
	return &LineWriter{w: w}
}

// Encode writes v as one JSON line; a value that cannot be encoded is
// written as {"type":"error","error":"encode: …"} instead.
func (j *LineWriter) Encode(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data, _ = json.Marshal(map[string]string{"type": "error", "error": "encode: " + err.Error()})
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.w.Write(append(data, '\n'))
}
