package fakellm

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Server is a fake model API listening on a local TCP port. Its methods are
// safe for concurrent use.
type Server struct {
	script  *Script
	httpSrv *http.Server
	url     string
	logw    io.Writer
	closing chan struct{} // closed by Close; every wait in a handler selects on it
	served  chan error    // receives the result of httpSrv.Serve

	closeOnce sync.Once
	closeErr  error

	mu          sync.Mutex // guards the fields below
	closed      bool
	inflight    sync.WaitGroup // handlers running; Add only under mu while !closed
	seq         int64          // requests received
	stepsServed []int          // per rule
	requests    []Request

	cache promptCache
	logMu sync.Mutex // serializes writes to logw
}

// Option configures [Start].
type Option func(*config)

type config struct {
	addr string
	log  io.Writer
}

// WithAddr listens on addr instead of "127.0.0.1:0" (a free port).
func WithAddr(addr string) Option { return func(c *config) { c.addr = addr } }

// WithLog writes one JSON line per request to w when the request is done;
// the package overview lists the fields. Writes are serialized; write errors
// are ignored.
func WithLog(w io.Writer) Option { return func(c *config) { c.log = w } }

// Start validates script, listens, and serves it until [Server.Close].
func Start(script *Script, opts ...Option) (*Server, error) {
	if script == nil {
		return nil, errors.New("fakellm: start: nil script")
	}
	if err := script.Validate(); err != nil {
		return nil, fmt.Errorf("fakellm: start: invalid script: %w", err)
	}
	cfg := config{addr: "127.0.0.1:0"}
	for _, o := range opts {
		o(&cfg)
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, fmt.Errorf("fakellm: start: %w", err)
	}
	s := &Server{
		script:      script,
		url:         "http://" + ln.Addr().String(),
		logw:        cfg.log,
		closing:     make(chan struct{}),
		served:      make(chan error, 1),
		stepsServed: make([]int, len(script.Rules)),
	}
	s.httpSrv = &http.Server{Handler: http.HandlerFunc(s.serveHTTP), ReadHeaderTimeout: 30 * time.Second}
	go func() { s.served <- s.httpSrv.Serve(ln) }()
	return s, nil
}

// URL is the server's base URL, "http://127.0.0.1:PORT", without /v1.
func (s *Server) URL() string { return s.url }

// Close stops the server: it ends stalled and delayed replies, closes every
// connection and waits for the handlers to return. It is safe to call more
// than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.closing)
		s.mu.Unlock()
		err := s.httpSrv.Close()
		s.inflight.Wait()
		if serveErr := <-s.served; !errors.Is(serveErr, http.ErrServerClosed) {
			err = errors.Join(err, serveErr)
		}
		if err != nil {
			s.closeErr = fmt.Errorf("fakellm: close: %w", err)
		}
	})
	return s.closeErr
}

// Requests returns a copy of every request received so far, in the order
// they arrived (which is the order their steps were consumed).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		r.Body = append([]byte(nil), r.Body...)
		r.Header = r.Header.Clone()
		out[i] = r
	}
	return out
}

// enter registers a handler; it reports false once Close has begun.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.inflight.Add(1)
	return true
}

// serveHTTP routes a request to its endpoint.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	defer s.inflight.Done()
	x := s.begin(w, r)
	var err error
	switch p := r.URL.Path; {
	case p == "/v1/messages":
		err = x.serveModel(APIAnthropic, anthropicAPI{})
	case p == "/v1/chat/completions":
		err = x.serveModel(APIChat, chatAPI{})
	case p == "/v1/responses":
		err = x.serveModel(APIResponses, responsesAPI{})
	case p == "/v1/messages/count_tokens":
		err = x.serveCountTokens()
	case p == "/v1/models" || strings.HasPrefix(p, "/v1/models/"):
		err = x.serveModels()
	default:
		err = x.replyError(nil, http.StatusNotFound, fmt.Sprintf("fakellm: no endpoint %s %s", r.Method, p), nil)
	}
	x.finish()
	if errors.Is(err, errAbort) {
		// Drop the connection without finishing the response, as a server
		// crash or network cut would.
		panic(http.ErrAbortHandler)
	}
}
