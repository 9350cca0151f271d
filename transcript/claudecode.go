package transcript

import "errors"

// sniffClaudeCode and readClaudeCode are placeholders until the reader lands.
func sniffClaudeCode(head []byte, name string) bool { return false }

func readClaudeCode(d *decodeState) error { return errors.New("claudecode: reader not written yet") }
