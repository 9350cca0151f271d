package hookwire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// maxReply bounds the sidecar's reply body, and maxHead its status line
// and headers together.
const (
	maxReply = 1 << 20
	maxHead  = 64 << 10
)

// post sends the event to the sidecar's socket and returns its reply
// body (empty for "nothing to say") and the problem it reported, if any.
// d is the wait the sidecar is told ([DeadlineHeader]); ctx bounds the
// exchange.
func post(ctx context.Context, sock string, body []byte, d time.Duration) (reply []byte, problem string, err error) {
	conn, err := dialUnix(ctx, sock)
	if err != nil {
		return nil, "", err
	}
	defer conn.Close()
	// Once ctx is done, reads and writes fail at once (and ctx.Err says
	// why).
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	reply, problem, err = exchange(conn, body, d)
	if err != nil && ctx.Err() != nil {
		return nil, problem, fmt.Errorf("the sidecar did not answer in time: %w", ctx.Err())
	}
	return reply, problem, err
}

// exchange writes one POST /hook of body to conn and reads the answer.
func exchange(conn io.ReadWriter, body []byte, d time.Duration) (reply []byte, problem string, err error) {
	head := "POST /hook HTTP/1.1\r\nHost: sidecar\r\nContent-Type: application/json\r\n" +
		DeadlineHeader + ": " + strconv.FormatInt(d.Milliseconds(), 10) + "\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n"
	if _, err := conn.Write(append([]byte(head), body...)); err != nil {
		return nil, "", fmt.Errorf("send the event to the sidecar: %w", err)
	}
	r := bufio.NewReader(conn)
	resp, err := readHead(r)
	if err != nil {
		return nil, "", fmt.Errorf("read the sidecar's answer: %w", err)
	}
	problem = LogText(resp.problem)
	reply, err = resp.body(r)
	if err != nil {
		return nil, problem, fmt.Errorf("read the sidecar's reply: %w", err)
	}
	switch {
	case resp.code == 204:
		return nil, problem, nil
	case resp.code != 200:
		return nil, problem, fmt.Errorf("sidecar answered %s: %s", LogText(resp.status), LogText(string(bytes.TrimSpace(reply))))
	case !bytes.HasPrefix(bytes.TrimSpace(reply), []byte("{")):
		return nil, problem, fmt.Errorf("sidecar answered something that is not a JSON object: %.80q", reply)
	}
	return reply, problem, nil
}

// response is what vigil reads of an HTTP response's head.
type response struct {
	code    int
	status  string // "409 Conflict"
	problem string
	length  int64 // -1: none given
	chunked bool
}

// readHead reads the status line and headers.
func readHead(r *bufio.Reader) (response, error) {
	resp := response{length: -1}
	used := 0
	line := func() (string, error) {
		l, err := r.ReadSlice('\n')
		used += len(l)
		if errors.Is(err, bufio.ErrBufferFull) || used > maxHead {
			return "", errors.New("header too long")
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		return strings.TrimRight(string(l), "\r\n"), nil
	}
	status, err := line()
	if err != nil {
		return resp, err
	}
	proto, rest, _ := strings.Cut(status, " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(rest) < 3 {
		return resp, fmt.Errorf("not an HTTP answer: %.80q", status)
	}
	if resp.code, err = strconv.Atoi(rest[:3]); err != nil {
		return resp, fmt.Errorf("not an HTTP status: %.80q", status)
	}
	resp.status = rest
	for {
		l, err := line()
		if err != nil {
			return resp, err
		}
		if l == "" {
			return resp, nil
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			return resp, fmt.Errorf("malformed header %.80q", l)
		}
		value = strings.TrimSpace(value)
		switch {
		case strings.EqualFold(name, ProblemHeader):
			if resp.problem == "" {
				resp.problem = value
			}
		case strings.EqualFold(name, "Content-Length"):
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 {
				return resp, fmt.Errorf("bad Content-Length %.40q", value)
			}
			resp.length = n
		case strings.EqualFold(name, "Transfer-Encoding"):
			resp.chunked = strings.Contains(strings.ToLower(value), "chunked")
		}
	}
}

var errReplyTooLarge = fmt.Errorf("larger than %d bytes", maxReply)

// body reads the response's body, which follows the head in r: none for
// 204 and 304, chunked, Content-Length bytes, or all up to the end.
func (resp response) body(r *bufio.Reader) ([]byte, error) {
	switch {
	case resp.code == 204 || resp.code == 304:
		return nil, nil
	case resp.chunked:
		return readChunked(r)
	case resp.length > maxReply:
		return nil, errReplyTooLarge
	case resp.length >= 0:
		b := make([]byte, resp.length)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	b, err := io.ReadAll(io.LimitReader(r, maxReply+1))
	if err == nil && len(b) > maxReply {
		return nil, errReplyTooLarge
	}
	return b, err
}

// readChunked reads a chunked body and its trailer.
func readChunked(r *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		l, err := r.ReadSlice('\n')
		if err != nil {
			return nil, fmt.Errorf("chunk size: %w", err)
		}
		size, _, _ := strings.Cut(strings.TrimRight(string(l), "\r\n"), ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad chunk size %.40q", l)
		}
		if n == 0 {
			break
		}
		if int64(len(out))+n > maxReply {
			return nil, errReplyTooLarge
		}
		chunk := make([]byte, n+2)
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, err
		}
		if !bytes.HasSuffix(chunk, []byte("\r\n")) {
			return nil, errors.New("chunk not followed by CRLF")
		}
		out = append(out, chunk[:n]...)
	}
	for { // the trailer, up to its empty line
		l, err := r.ReadSlice('\n')
		if err != nil {
			return nil, fmt.Errorf("trailer: %w", err)
		}
		if len(bytes.TrimRight(l, "\r\n")) == 0 {
			return out, nil
		}
	}
}

// isAbsent reports whether err says nothing listens on the socket.
func isAbsent(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}
