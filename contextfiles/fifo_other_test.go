//go:build !unix

package contextfiles_test

import "errors"

func mkfifo(string) error { return errors.New("no named pipes") }
