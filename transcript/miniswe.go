package transcript

import "errors"

// sniffMiniSWEAgent and readMiniSWEAgent are placeholders until the reader lands.
func sniffMiniSWEAgent(head []byte, name string) bool { return false }

func readMiniSWEAgent(d *decodeState) error { return errors.New("miniswe: reader not written yet") }
