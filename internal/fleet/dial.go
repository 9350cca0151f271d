package fleet

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Auth is how a client authenticates to NATS and verifies it: a
// credentials file, a CA bundle, a client certificate and its key (each
// "" for none). vigil serve's and vigil stats --fleet's flags and the
// agent's advisor.fleet settings give it.
type Auth struct {
	Creds, TLSCA, TLSCert, TLSKey string
}

// Dial connects to the NATS server(s) url as client name, with a's
// credentials and TLS and the further options extra. Its error names
// the servers without the users, passwords or tokens their URLs hold
// ([HideCredentials]).
func (a Auth) Dial(url, name string, extra ...nats.Option) (*nats.Conn, error) {
	opts := append([]nats.Option{nats.Name(name)}, extra...)
	if a.Creds != "" {
		opts = append(opts, nats.UserCredentials(a.Creds))
	}
	if a.TLSCA != "" {
		opts = append(opts, nats.RootCAs(a.TLSCA))
	}
	if a.TLSCert != "" || a.TLSKey != "" {
		if a.TLSCert == "" || a.TLSKey == "" {
			return nil, errors.New("--tls-cert and --tls-key go together")
		}
		opts = append(opts, nats.ClientCert(a.TLSCert, a.TLSKey))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, HideCredentialsIn(fmt.Errorf("connecting to %s: %w", url, err))
	}
	return nc, nil
}
