//go:build !unix

package locate_test

import "errors"

func mkfifo(string) error { return errors.New("not on this system") }
