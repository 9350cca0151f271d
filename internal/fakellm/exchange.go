package fakellm

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"
)

// maxBody bounds the request bodies the server reads.
const maxBody = 32 << 20

// exchange is one request being answered. Only its handler goroutine uses
// it; what it shares with Requests goes through the Server's mutex.
type exchange struct {
	s      *Server
	w      *statusWriter
	r      *http.Request
	start  time.Time
	seq    int64 // the request's number on this server, from 1
	idx    int   // index in s.requests, -1 until recorded
	rec    Request
	errMsg string // the error sent, for the log
}

func (s *Server) begin(w http.ResponseWriter, r *http.Request) *exchange {
	now := time.Now()
	x := &exchange{s: s, r: r, start: now, idx: -1, rec: Request{
		Time: now, Method: r.Method, Path: r.URL.Path,
		RuleIndex: -1, StepIndex: -1, Header: redactHeader(r.Header),
	}}
	x.w = &statusWriter{ResponseWriter: w, x: x}
	return x
}

// record adds the request to the server's list, first calling pick (if
// any) under the same lock so that list order is step order.
func (x *exchange) record(pick func()) {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	if pick != nil {
		pick()
	}
	x.s.seq++
	x.seq = x.s.seq
	x.idx = len(x.s.requests)
	x.s.requests = append(x.s.requests, x.rec)
}

// update changes the recorded request.
func (x *exchange) update(f func(*Request)) {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	f(&x.rec)
	if x.idx >= 0 {
		x.s.requests[x.idx] = x.rec
	}
}

// finish records the outcome and writes the log line.
func (x *exchange) finish() {
	if x.idx < 0 {
		x.record(nil)
	}
	x.update(func(r *Request) { r.Status = x.w.status })
	x.s.writeLog(x.rec, x.errMsg, time.Since(x.start))
}

// readBody reads the request body. On failure it has replied, or returns
// errAbort when the client is gone.
func (x *exchange) readBody(d dialect) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(x.w, x.r.Body, maxBody))
	if err == nil {
		x.rec.Body = body
		return body, nil
	}
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, x.replyError(d, http.StatusRequestEntityTooLarge, fmt.Sprintf("fakellm: request body over %d bytes", maxBody), nil)
	}
	return nil, errors.Join(errAbort, fmt.Errorf("read request body: %w", err))
}

// serveModel answers a model request of the given API from the script.
func (x *exchange) serveModel(api string, d dialect) error {
	x.rec.API = api
	if x.r.Method != http.MethodPost {
		return x.replyError(d, http.StatusMethodNotAllowed, fmt.Sprintf("fakellm: %s wants POST, not %s", x.r.URL.Path, x.r.Method), nil)
	}
	body, err := x.readBody(d)
	if err != nil {
		return err
	}
	wr, err := d.parse(body)
	if err != nil {
		return x.replyError(d, http.StatusBadRequest, "fakellm: "+err.Error(), nil)
	}
	x.rec.Model, x.rec.Stream = wr.model, wr.stream
	if window, ok := x.s.window(wr.model); ok {
		if n := tokens(len(wr.prompt)); n > window {
			return x.replyError(d, http.StatusBadRequest, d.tooLong(n, window), nil)
		}
	}
	var why string
	x.record(func() {
		var ri, si int
		ri, si, why = x.s.pick(api, wr.model, body)
		x.rec.RuleIndex, x.rec.StepIndex = ri, si
		if ri >= 0 {
			x.rec.Rule = x.s.script.Rules[ri].Name
		}
	})
	if x.rec.RuleIndex < 0 {
		return x.replyError(d, http.StatusInternalServerError, why, nil)
	}
	st := &x.s.script.Rules[x.rec.RuleIndex].Steps[x.rec.StepIndex]
	if !x.wait(time.Duration(st.Delay)) {
		return errAbort
	}
	if f := st.Fault; f != nil && f.Status != 0 {
		msg := f.Message
		if msg == "" {
			msg = fmt.Sprintf("fakellm: scripted %d fault", f.Status)
		}
		return x.replyError(d, f.Status, msg, f)
	}
	rp := newReply(st, x.seq, wr, time.Now())
	if st.Usage != nil {
		rp.usage = *st.Usage
	} else {
		cached := x.s.cache.cachedPrefix(api, wr.model, wr.prompt)
		rp.usage = simulateUsage(wr, cached, rp.outputBytes())
	}
	x.update(func(r *Request) { r.Usage = rp.usage })
	if wr.stream {
		return x.writeStream(d.events(rp), st.Fault)
	}
	return x.writeBody(http.StatusOK, marshal(d.body(rp)), st.Fault)
}

// window returns the context window the script gives model.
func (s *Server) window(model string) (int, bool) {
	best, found := 0, false
	for glob, n := range s.script.ContextWindows {
		if ok, _ := path.Match(glob, model); ok && (!found || n < best) {
			best, found = n, true
		}
	}
	return best, found
}

// serveCountTokens answers POST /v1/messages/count_tokens with the
// simulated prompt size. It consumes no step.
func (x *exchange) serveCountTokens() error {
	x.rec.API = APIAnthropic
	d := anthropicAPI{}
	if x.r.Method != http.MethodPost {
		return x.replyError(d, http.StatusMethodNotAllowed, fmt.Sprintf("fakellm: %s wants POST, not %s", x.r.URL.Path, x.r.Method), nil)
	}
	body, err := x.readBody(d)
	if err != nil {
		return err
	}
	wr, err := d.parse(body)
	if err != nil {
		return x.replyError(d, http.StatusBadRequest, "fakellm: "+err.Error(), nil)
	}
	x.rec.Model = wr.model
	x.record(nil)
	n := tokens(len(wr.prompt))
	x.update(func(r *Request) { r.Usage.Input = n })
	return x.writeBody(http.StatusOK, marshal(obj("input_tokens", n)), nil)
}

// serveModels answers GET /v1/models and GET /v1/models/ID with the models
// the script names.
func (x *exchange) serveModels() error {
	x.record(nil)
	if x.r.Method != http.MethodGet {
		return x.replyError(nil, http.StatusMethodNotAllowed, fmt.Sprintf("fakellm: %s wants GET, not %s", x.r.URL.Path, x.r.Method), nil)
	}
	created := time.Now()
	ids := modelIDs(x.s.script)
	if id, ok := strings.CutPrefix(x.r.URL.Path, "/v1/models/"); ok {
		for _, m := range ids {
			if m == id {
				return x.writeBody(http.StatusOK, marshal(modelObject(m, created)), nil)
			}
		}
		return x.replyError(nil, http.StatusNotFound, fmt.Sprintf("fakellm: the script names no model %q", id), nil)
	}
	return x.writeBody(http.StatusOK, marshal(modelList(ids, created)), nil)
}

// replyError records the request if that is not done yet and sends an
// error in d's shape (a shape both SDKs read when d is nil), with retry
// headers when f asks for them.
func (x *exchange) replyError(d dialect, status int, msg string, f *Fault) error {
	if x.idx < 0 {
		x.record(nil)
	}
	x.errMsg = msg
	if f != nil && f.RetryAfter > 0 {
		after := time.Duration(f.RetryAfter)
		x.w.Header().Set("Retry-After", fmt.Sprint(int64((after+time.Second-1)/time.Second)))
		x.w.Header().Set("Retry-After-Ms", fmt.Sprint(int64((after+time.Millisecond-1)/time.Millisecond)))
	}
	var body any
	if d != nil {
		body = d.errorBody(status, msg)
	} else {
		// Anthropic's shape, plus the code OpenAI's SDK reads from "error".
		body = obj("type", "error", "error", obj("type", anthropicErrorType(status), "message", msg, "code", nil))
	}
	return x.writeBody(status, marshal(body), nil)
}
