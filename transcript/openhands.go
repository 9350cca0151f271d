package transcript

import "errors"

// sniffOpenHands and readOpenHands are placeholders until the reader lands.
func sniffOpenHands(head []byte, name string) bool { return false }

func readOpenHands(d *decodeState) error { return errors.New("openhands: reader not written yet") }
