package transcript

import "errors"

// sniffPi and readPi are placeholders until the reader lands.
func sniffPi(head []byte, name string) bool { return false }

func readPi(d *decodeState) error { return errors.New("pi: reader not written yet") }
