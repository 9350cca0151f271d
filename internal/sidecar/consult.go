package sidecar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
)

// Consulter is an [Advisor] that answers the watched agent's questions
// (the ask_advisor tool of `vigil mcp`): [advisor.Runtime] and
// [advisor.Periodic] are.
type Consulter interface {
	Consult(ctx context.Context, question string) (string, error)
}

// ErrUnavailable says no advisor can answer: no sidecar watches the
// session, or the one that does has no advisor that answers questions.
var ErrUnavailable = errors.New("advisor unavailable")

// MaxConsult bounds a consult request's body.
const MaxConsult = 64 << 10

// ConsultRequest is the body of POST /consult.
type ConsultRequest struct {
	Question string `json:"question"`
}

// ConsultReply is the answer to POST /consult: the advisor's answer, or
// why there is none (Unavailable when no advisor can answer at all).
type ConsultReply struct {
	Answer      string `json:"answer,omitempty"`
	Error       string `json:"error,omitempty"`
	Unavailable bool   `json:"unavailable,omitempty"`
}

// Consult asks the sidecar's advisor a question of the agent: it reads
// the transcript first, so the advisor has every step written before the
// question, then asks ([Consulter]); the answer is escaped as the advisor
// returns it. A disabled sidecar, or one whose advisor cannot answer,
// returns [ErrUnavailable] at once.
func (s *Sidecar) Consult(ctx context.Context, question string) (string, error) {
	if s.o.Disabled != "" {
		return "", fmt.Errorf("%w: %s", ErrUnavailable, s.o.Disabled)
	}
	c, ok := s.o.Advisor.(Consulter)
	if !ok {
		return "", ErrUnavailable
	}
	select {
	case s.activity <- struct{}{}:
	default:
	}
	if err := s.Sync(); err != nil {
		// Logged once by the reader; the advisor answers from what it has.
		s.o.Logf("consult: reading the transcript first: %v", err)
	}
	answer, err := c.Consult(ctx, question)
	s.mu.Lock()
	if err != nil {
		s.stats.ConsultFailures++
	} else {
		s.stats.Consults++
	}
	s.mu.Unlock()
	if err != nil {
		s.o.Logf("consult: %v", err)
	}
	return answer, err
}

// serveConsult answers POST /consult.
func (s *Sidecar) serveConsult(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxConsult+1))
	if err != nil || len(body) > MaxConsult {
		http.Error(w, fmt.Sprintf("consult: a JSON body of at most %d bytes is needed", MaxConsult), http.StatusBadRequest)
		return
	}
	var req ConsultRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, "consult: "+err.Error(), http.StatusBadRequest)
		return
	}
	var rep ConsultReply
	rep.Answer, err = s.Consult(r.Context(), req.Question)
	if err != nil {
		rep.Answer, rep.Error, rep.Unavailable = "", err.Error(), errors.Is(err, ErrUnavailable)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(rep)
}

// Ask sends a question to the sidecar listening on socket and returns its
// answer. An error wraps [ErrUnavailable] when no advisor can answer
// there (the socket refuses, or the sidecar says so); otherwise it holds
// the advisor's reason.
func Ask(ctx context.Context, socket, question string) (string, error) {
	body, err := json.Marshal(ConsultRequest{Question: question})
	if err != nil {
		return "", err
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
	}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://sidecar/consult", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("consult: %w", ctx.Err())
		}
		return "", fmt.Errorf("%w: the sidecar does not answer (%v)", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", fmt.Errorf("consult: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%w: the sidecar answered %s: %s", ErrUnavailable, resp.Status, bytes.TrimSpace(data))
	}
	var rep ConsultReply
	if err := json.Unmarshal(data, &rep); err != nil {
		return "", fmt.Errorf("consult: the sidecar's answer: %w", err)
	}
	switch {
	case rep.Unavailable:
		return "", fmt.Errorf("%w: %s", ErrUnavailable, rep.Error)
	case rep.Error != "":
		return "", errors.New(rep.Error)
	}
	return rep.Answer, nil
}

// ForAgent returns the live sidecar that watches a session of the agent
// process p (the one [AgentOf] names for a hook, or for an MCP server the
// agent started): the most recently started, when several do.
func (d Dir) ForAgent(p Proc) (Info, bool) {
	if p.PID <= 0 {
		return Info{}, false
	}
	list, _ := d.List() // a record it cannot read is not p's to use
	var best Info
	found := false
	for _, in := range list {
		if in.AgentPID != p.PID || (p.Start != 0 && in.AgentStart != 0 && in.AgentStart != p.Start) {
			continue
		}
		if !found || in.Started.After(best.Started) {
			best, found = in, true
		}
	}
	return best, found
}
