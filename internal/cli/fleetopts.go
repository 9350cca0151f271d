package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/nats-io/nats.go"
)

// natsFlags are how a fleet command authenticates to NATS and verifies
// it: `vigil serve` and `vigil stats --fleet` embed them.
type natsFlags struct {
	Creds   string `type:"existingfile" placeholder:"FILE" help:"A NATS credentials file (JWT and nkey seed)."`
	TLSCA   string `name:"tls-ca" type:"existingfile" placeholder:"FILE" help:"Verify the NATS server's certificate against this CA bundle."`
	TLSCert string `name:"tls-cert" type:"existingfile" placeholder:"FILE" help:"Present this client certificate to NATS (with --tls-key)."`
	TLSKey  string `name:"tls-key" type:"existingfile" placeholder:"FILE" help:"The client certificate's key."`
}

// connect connects to the NATS server(s) url as client name, with the
// credentials and TLS of f and the further options extra. Its error
// names the servers without the users, passwords or tokens their URLs
// hold ([hideNATSCredentials]).
func (f natsFlags) connect(url, name string, extra ...nats.Option) (*nats.Conn, error) {
	opts := append([]nats.Option{nats.Name(name)}, extra...)
	if f.Creds != "" {
		opts = append(opts, nats.UserCredentials(f.Creds))
	}
	if f.TLSCA != "" {
		opts = append(opts, nats.RootCAs(f.TLSCA))
	}
	if f.TLSCert != "" || f.TLSKey != "" {
		if f.TLSCert == "" || f.TLSKey == "" {
			return nil, errors.New("--tls-cert and --tls-key go together")
		}
		opts = append(opts, nats.ClientCert(f.TLSCert, f.TLSKey))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, hideNATSError(fmt.Errorf("connecting to %s: %w", url, err))
	}
	return nc, nil
}

// urlUserinfo matches the scheme of a URL and the user, password or
// token before its host: from "://" to the last "@" before the host's
// end (a "/", "?", "#", white space, a quote or the "," between URLs).
var urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s"'<>,]*@`)

// hideNATSCredentials returns s with the user, password or token taken
// out of every URL in it: "nats://bob:pw@a:4222, tls://tok@b:4222"
// becomes "nats://a:4222, tls://b:4222". s may be a URL, a
// comma-separated list of them, or any text that quotes them (an error
// of nats.go or of url.Parse). It is what vigil shows of a NATS URL,
// everywhere: status lines, logs and errors.
func hideNATSCredentials(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return urlUserinfo.ReplaceAllString(s, "$1")
}

// hideNATSError returns err with its text passed through
// [hideNATSCredentials]; errors.Is and errors.As still see what it wraps.
func hideNATSError(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if hidden := hideNATSCredentials(msg); hidden != msg {
		return &hiddenError{msg: hidden, err: err}
	}
	return err
}

// hiddenError is an error whose text had credentials taken out.
type hiddenError struct {
	msg string
	err error
}

func (e *hiddenError) Error() string { return e.msg }
func (e *hiddenError) Unwrap() error { return e.err }
