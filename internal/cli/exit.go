package cli

import "errors"

// exitError asks for a particular exit status. Its message may be empty,
// for a status that needs no words.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// Exit statuses beyond 0 (success) and 1 (the default for an error).
const (
	// exitFindings is `vigil review --fail-on`'s status when a finding at
	// or above the threshold was found.
	exitFindings = 1
	// exitUsage is the status of a command line vigil cannot use, and of
	// review and eval errors.
	exitUsage = 2
)

// ExitCode returns the exit status for an error [Run] returned: 0 for
// nil, the status the error asks for (`vigil review` uses 1 for findings
// at or above --fail-on and 2 for errors; a command line that cannot be
// parsed is 2), and 1 for any other error.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
