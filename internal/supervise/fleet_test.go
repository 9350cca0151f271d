package supervise

import (
	"errors"
	"testing"

	"github.com/vigil-dev/vigil/internal/fleet"
)

// TestFleetMessages are the exact warnings of a fleet not reached at the
// start (from the link's own attempt) and of a step the fleet does not
// take: no word doubled, no credential.
func TestFleetMessages(t *testing.T) {
	url := "nats://bob:s3cret@127.0.0.1:1, nats://tok3n@127.0.0.1:2"
	var down error
	l := fleet.Connect(fleet.LinkOptions{URL: url, Tenant: "acme", Session: "s1", Down: func(err error) { down = err }})
	l.Stop()
	if down == nil {
		t.Fatal("connected to port 1")
	}
	got := FleetDownWarning(down)
	want := "advisor: the fleet (nats://127.0.0.1:1,nats://127.0.0.1:2, tenant acme) is not reached: connecting to nats://127.0.0.1:1, nats://127.0.0.1:2: nats: no servers available for connection; the session is not reviewed until the fleet answers (vigil tries again)"
	if got != want {
		t.Errorf("the warning of a fleet down at the start:\n got %q\nwant %q", got, want)
	}
	got = FleetTroubleWarning(fleet.At(url, "acme"), errors.New("fleet: step 3 dropped: not connected (RECONNECTING)"))
	want = "advisor: the fleet (nats://127.0.0.1:1,nats://127.0.0.1:2, tenant acme) does not take the session's steps (step 3 dropped: not connected (RECONNECTING)); they are not reviewed until it does"
	if got != want {
		t.Errorf("the warning of a step not taken:\n got %q\nwant %q", got, want)
	}
	if got := FleetWhere(url, "acme"); got != "fleet nats://127.0.0.1:1,nats://127.0.0.1:2, tenant acme" {
		t.Errorf("FleetWhere = %q", got)
	}
}

// TestFleetWhereHidesSecrets: a fleet URL's user and password never
// reach a status line or a log.
func TestFleetWhereHidesSecrets(t *testing.T) {
	got := FleetWhere("nats://bob:s3cret@a:4222, tls://tok@b:4222", "acme")
	if want := "fleet nats://a:4222,tls://b:4222, tenant acme"; got != want {
		t.Fatalf("FleetWhere = %q, want %q", got, want)
	}
	if fleet.SessionName("0b6c1c1e-aa") != "0b6c1c1e-aa" || fleet.SessionName("a.b") == "a.b" || len(fleet.SessionName("a.b")) != 33 {
		t.Fatal("SessionName: ids that are subject tokens stay, others become a digest")
	}
}
