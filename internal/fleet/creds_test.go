package fleet

import (
	"errors"
	"strings"
	"testing"
)

// TestHideCredentials: the user, password or token of every NATS URL
// in a text goes, whatever quotes the URL (a list, an error of url.Parse
// or nats.go), and the rest stays.
func TestHideCredentials(t *testing.T) {
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
		if got := HideCredentials(in); got != want {
			t.Errorf("HideCredentials(%q) = %q, want %q", in, got, want)
		}
	}
	inner := errors.New(`parse "nats://bob:s3cret@h:port": invalid port`)
	err := HideCredentialsIn(inner)
	if strings.Contains(err.Error(), "s3cret") || !errors.Is(err, inner) {
		t.Errorf("HideCredentialsIn = %q (wraps it: %t), want the text without the password, wrapping the error", err, errors.Is(err, inner))
	}
	if plain := errors.New("nats: no servers available for connection"); HideCredentialsIn(plain) != plain {
		t.Error("HideCredentialsIn changed an error with no URL")
	}
}
