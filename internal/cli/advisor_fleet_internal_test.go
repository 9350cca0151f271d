package cli

import (
	"testing"

	"github.com/vigil-dev/vigil/config"
)

// TestFleetWhereHidesSecrets: a fleet URL's user and password never
// reach a status line or a log.
func TestFleetWhereHidesSecrets(t *testing.T) {
	got := fleetWhere(config.Fleet{URL: "nats://bob:s3cret@a:4222, tls://tok@b:4222", Tenant: "acme"})
	if want := "fleet nats://a:4222,tls://b:4222, tenant acme"; got != want {
		t.Fatalf("fleetWhere = %q, want %q", got, want)
	}
	if fleetSession("0b6c1c1e-aa") != "0b6c1c1e-aa" || fleetSession("a.b") == "a.b" || len(fleetSession("a.b")) != 33 {
		t.Fatal("fleetSession: ids that are subject tokens stay, others become a digest")
	}
}
