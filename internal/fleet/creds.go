package fleet

import (
	"regexp"
	"strings"
	"sync"
)

// urlUserinfo matches the scheme of a URL and the user, password or
// token before its host: from "://" to the last "@" before the host's
// end (a "/", "?", "#", white space, a quote or the "," between URLs).
var urlUserinfo = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s"'<>,]*@`)
})

// HideCredentials returns s with the user, password or token taken
// out of every URL in it: "nats://bob:pw@a:4222, tls://tok@b:4222"
// becomes "nats://a:4222, tls://b:4222". s may be a URL, a
// comma-separated list of them, or any text that quotes them (an error
// of nats.go or of url.Parse). It is what vigil shows of a NATS URL,
// everywhere: status lines, logs and errors.
func HideCredentials(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	return urlUserinfo().ReplaceAllString(s, "$1")
}

// HideCredentialsIn returns err with its text passed through
// [HideCredentials]; errors.Is and errors.As still see what it wraps.
func HideCredentialsIn(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if hidden := HideCredentials(msg); hidden != msg {
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
