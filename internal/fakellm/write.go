package fakellm

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// errAbort tells serveHTTP to drop the connection mid-response.
var errAbort = errors.New("fakellm: abort connection")

// statusWriter remembers the status sent and records it as soon as the
// headers go out, so that Requests shows a stalled reply's status.
type statusWriter struct {
	http.ResponseWriter
	x      *exchange
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.x.update(func(r *Request) { r.Status = code })
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wait sleeps for d, or until the client goes away or the server closes;
// it reports whether the full time passed.
func (x *exchange) wait(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-x.r.Context().Done():
	case <-x.s.closing:
	}
	return false
}

// hang waits until the client goes away or the server closes.
func (x *exchange) hang() {
	select {
	case <-x.r.Context().Done():
	case <-x.s.closing:
	}
}

func (x *exchange) setCommonHeaders(contentType string) {
	h := x.w.Header()
	h.Set("Content-Type", contentType)
	id := fmt.Sprintf("req_fakellm_%d", x.seq)
	h.Set("Request-Id", id)
	h.Set("X-Request-Id", id)
}

// writeBody sends a JSON reply, shaped by f's CutAfter, Malformed or Stall.
func (x *exchange) writeBody(status int, body []byte, f *Fault) error {
	x.setCommonHeaders("application/json")
	rc := http.NewResponseController(x.w)
	switch {
	case f == nil:
	case f.Stall:
		x.w.WriteHeader(status)
		_ = rc.Flush()
		x.hang()
		return errAbort
	case f.CutAfter > 0:
		x.w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		x.w.WriteHeader(status)
		_, _ = x.w.Write(body[:len(body)/2])
		_ = rc.Flush()
		return errAbort
	case f.Malformed:
		body = body[:len(body)/2]
	}
	x.w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	x.w.WriteHeader(status)
	if _, err := x.w.Write(body); err != nil {
		return errors.Join(errAbort, fmt.Errorf("write reply: %w", err))
	}
	// Send the reply now rather than when the handler returns, after the
	// request is logged.
	_ = rc.Flush()
	return nil
}

// writeStream sends events as server-sent events, shaped by f: CutAfter
// drops the connection after that many events (always before the last),
// Malformed halves the data of the first event after the first that is
// not a ping, and Stall hangs after the first event, or, with CutAfter,
// after that many events.
func (x *exchange) writeStream(evs []event, f *Fault) error {
	x.setCommonHeaders("text/event-stream; charset=utf-8")
	x.w.Header().Set("Cache-Control", "no-cache")
	x.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(x.w)
	cut, bad := -1, -1
	if f != nil && f.CutAfter > 0 {
		cut = min(f.CutAfter, len(evs)-1)
	}
	if f != nil && f.Malformed {
		for i := 1; i < len(evs) && bad < 0; i++ {
			if evs[i].name != "ping" {
				bad = i
			}
		}
	}
	stallAt := -1
	if f != nil && f.Stall {
		stallAt = 0
		if cut >= 0 {
			stallAt, cut = cut-1, -1
		}
	}
	for i, ev := range evs {
		if i == cut {
			return errAbort
		}
		data := ev.data
		if i == bad {
			data = data[:len(data)/2]
		}
		var buf []byte
		if ev.name != "" {
			buf = fmt.Appendf(buf, "event: %s\n", ev.name)
		}
		buf = fmt.Appendf(buf, "data: %s\n\n", data)
		if _, err := x.w.Write(buf); err != nil {
			return errors.Join(errAbort, fmt.Errorf("write event: %w", err))
		}
		if err := rc.Flush(); err != nil {
			return errors.Join(errAbort, fmt.Errorf("flush event: %w", err))
		}
		if i == stallAt {
			x.hang()
			return errAbort
		}
	}
	return nil
}
