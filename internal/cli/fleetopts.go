package cli

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
	"github.com/vigil-dev/vigil/internal/fleet"
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
// hold ([fleet.HideCredentials]).
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
		return nil, fleet.HideCredentialsIn(fmt.Errorf("connecting to %s: %w", url, err))
	}
	return nc, nil
}
