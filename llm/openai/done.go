package openai

import (
	"bytes"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3/option"
)

// doneWatcher notes whether a Chat Completions body ended with the
// "data: [DONE]" line. The SDK's stream ends the same way on [DONE] and on
// a body that simply stops, so the adapter looks at the bytes itself: it
// keeps the last few read, which after [DONE] (the SDK stops reading there)
// are that line.
type doneWatcher struct {
	body io.ReadCloser
	tail [32]byte
	n    int // bytes of tail in use
}

// middleware wraps the body of a successful response.
func (w *doneWatcher) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err == nil && res != nil && res.StatusCode < 300 && res.Body != nil {
		w.body = res.Body
		res.Body = w
	}
	return res, err
}

func (w *doneWatcher) Read(p []byte) (int, error) {
	n, err := w.body.Read(p)
	if n > 0 {
		w.keep(p[:n])
	}
	return n, err
}

func (w *doneWatcher) Close() error { return w.body.Close() }

// keep remembers the last len(w.tail) bytes read.
func (w *doneWatcher) keep(p []byte) {
	if len(p) >= len(w.tail) {
		w.n = copy(w.tail[:], p[len(p)-len(w.tail):])
		return
	}
	if w.n+len(p) > len(w.tail) {
		drop := w.n + len(p) - len(w.tail)
		copy(w.tail[:], w.tail[drop:w.n])
		w.n -= drop
	}
	w.n += copy(w.tail[w.n:], p)
}

// seen reports whether the body read so far ends with the [DONE] line.
func (w *doneWatcher) seen() bool {
	t := bytes.TrimRight(w.tail[:w.n], "\r\n\t ")
	for _, line := range [...]string{"data: [DONE]", "data:[DONE]"} {
		if !bytes.HasSuffix(t, []byte(line)) {
			continue
		}
		// The line must start a line: model text inside JSON never holds a
		// raw newline, so this cannot be a quoted "[DONE]".
		rest := t[:len(t)-len(line)]
		if len(rest) == 0 {
			return w.n < len(w.tail) // the whole body was this line
		}
		if c := rest[len(rest)-1]; c == '\n' || c == '\r' {
			return true
		}
	}
	return false
}
