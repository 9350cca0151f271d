package cli

import (
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

// auth is f as the fleet's [fleet.Auth].
func (f natsFlags) auth() fleet.Auth {
	return fleet.Auth{Creds: f.Creds, TLSCA: f.TLSCA, TLSCert: f.TLSCert, TLSKey: f.TLSKey}
}
