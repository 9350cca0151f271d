package hook

import (
	"crypto/subtle"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/vigil-dev/vigil/internal/hookwire"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// Router serves Claude Code's HTTP hooks (type "http" in its settings),
// so that no process is started per event: Claude Code POSTs the event
// JSON to http://127.0.0.1:PORT/hook/SECRET/claude-code, and the router
// forwards it to the session's sidecar, starting one when none listens,
// exactly as the hook command does.
//
// Anything on the machine can reach a loopback port, so the path carries
// a secret the router compares in constant time; a request without it
// gets 404. Any web page can reach it too, with the requests a browser
// sends without asking the server first: a request with an Origin
// header gets 403, one whose Content-Type is not application/json 415,
// and neither reaches a sidecar. Like the command, it fails open: whatever goes wrong, the
// answer is 200 with an empty body (Claude Code's "nothing to apply"),
// and the reason goes to Logf.
type Router struct {
	Dir    sidecar.Dir
	Secret string
	// Spawn starts the sidecar of an agent's session; nil never starts
	// one.
	Spawn func(agent string) hookwire.Spawner
	// Timeout is the wait for the sidecar's answer; nil: DefaultTimeout.
	Timeout func(event string) time.Duration
	// Logf says why an event got no answer; nil logs nothing.
	Logf func(format string, args ...any)
	// Activity, if set, receives a value (without blocking) per request.
	Activity chan<- struct{}
}

// ServeHTTP implements http.Handler.
func (r *Router) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if r.Activity != nil {
		select {
		case r.Activity <- struct{}{}:
		default:
		}
	}
	secret, agent := req.PathValue("secret"), req.PathValue("agent")
	if _, ok := req.Header["Origin"]; ok {
		// A browser's: any web page may POST to loopback. Claude Code
		// sends no Origin.
		http.Error(w, "requests from web pages are refused", http.StatusForbidden)
		return
	}
	if req.Method != http.MethodPost || r.Secret == "" || subtle.ConstantTimeCompare([]byte(secret), []byte(r.Secret)) != 1 {
		http.NotFound(w, req)
		return
	}
	if agent != sidecar.AgentClaudeCode && agent != sidecar.AgentCodex {
		http.NotFound(w, req)
		return
	}
	if mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		// What a web page can send without asking first (text/plain,
		// a form, none) is never an event.
		http.Error(w, "want Content-Type: application/json", http.StatusUnsupportedMediaType)
		return
	}
	out, err := r.forward(req, agent)
	if err != nil && r.Logf != nil {
		r.Logf("vigil hook %s (http): %v (failed open: the agent goes on)", agent, err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

func (r *Router) forward(req *http.Request, agent string) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(req.Body, hookwire.MaxEvent+1))
	if err != nil {
		return nil, err
	}
	if len(body) > hookwire.MaxEvent {
		return nil, hookwire.ErrTooLarge
	}
	in, err := hookwire.ParseInput(body)
	if err != nil {
		return nil, err
	}
	timeout := DefaultTimeout
	if r.Timeout != nil {
		timeout = r.Timeout
	}
	var spawn hookwire.Spawner
	if r.Spawn != nil {
		spawn = r.Spawn(agent)
	}
	return hookwire.Forward(req.Context(), hookwire.Dir(r.Dir), agent, in, spawn, timeout(in.HookEventName))
}

// Pattern is the route a Router serves, for an http.ServeMux.
const Pattern = "/hook/{secret}/{agent}"
