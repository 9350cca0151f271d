package cli

import (
	"errors"
	"testing"

	"github.com/vigil-dev/vigil/config"
)

// TestFleetMessages are the exact warnings of a fleet not reached at the
// start and of a step the fleet does not take: no word doubled, no
// credential.
func TestFleetMessages(t *testing.T) {
	f := config.Fleet{URL: "nats://bob:s3cret@127.0.0.1:1, nats://tok3n@127.0.0.1:2", Tenant: "acme"}
	_, err := natsFlags{}.connect(f.URL, "test")
	if err == nil {
		t.Fatal("connected to port 1")
	}
	got := fleetDownWarning(fleetNotReached(f, err))
	want := "advisor: the fleet (nats://127.0.0.1:1,nats://127.0.0.1:2, tenant acme) is not reached: connecting to nats://127.0.0.1:1, nats://127.0.0.1:2: nats: no servers available for connection; the session is not reviewed until the fleet answers (vigil tries again)"
	if got != want {
		t.Errorf("the warning of a fleet down at the start:\n got %q\nwant %q", got, want)
	}
	got = fleetTroubleWarning(fleetAt(f), errors.New("fleet: step 3 dropped: not connected (RECONNECTING)"))
	want = "advisor: the fleet (nats://127.0.0.1:1,nats://127.0.0.1:2, tenant acme) does not take the session's steps (step 3 dropped: not connected (RECONNECTING)); they are not reviewed until it does"
	if got != want {
		t.Errorf("the warning of a step not taken:\n got %q\nwant %q", got, want)
	}
	if got := fleetWhere(f); got != "fleet nats://127.0.0.1:1,nats://127.0.0.1:2, tenant acme" {
		t.Errorf("fleetWhere = %q", got)
	}
}
