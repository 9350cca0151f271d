package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/config"
)

// TestHideNATSCredentials: the user, password or token of every NATS URL
// in a text goes, whatever quotes the URL (a list, an error of url.Parse
// or nats.go), and the rest stays.
func TestHideNATSCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"nats://bob:s3cret@a:4222":                          "nats://a:4222",
		"nats://s3cr3ttoken@a:4222":                         "nats://a:4222",
		"nats://bob:p@ss@a:4222":                            "nats://a:4222",
		"nats://bob:s3cret@a:4222, tls://tok@b:4222":        "nats://a:4222, tls://b:4222",
		"nats://a:1,nats://bob:s3cret@b:2,nats://tok@c:3":   "nats://a:1,nats://b:2,nats://c:3",
		`parse "nats://bob:s3cret@h:port": invalid port`:    `parse "nats://h:port": invalid port`,
		"connecting to ws://bob:s3cret@h:80/x: nats: error": "connecting to ws://h:80/x: nats: error",
		"nats://a:4222":                                     "nats://a:4222",
		"mail bob@example.com, nats://a:1":                  "mail bob@example.com, nats://a:1",
	} {
		if got := hideNATSCredentials(in); got != want {
			t.Errorf("hideNATSCredentials(%q) = %q, want %q", in, got, want)
		}
	}
	inner := errors.New(`parse "nats://bob:s3cret@h:port": invalid port`)
	err := hideNATSError(inner)
	if strings.Contains(err.Error(), "s3cret") || !errors.Is(err, inner) {
		t.Errorf("hideNATSError = %q (wraps it: %t), want the text without the password, wrapping the error", err, errors.Is(err, inner))
	}
	if plain := errors.New("nats: no servers available for connection"); hideNATSError(plain) != plain {
		t.Error("hideNATSError changed an error with no URL")
	}
}

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
