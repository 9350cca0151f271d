package session

// EncodeEntry returns the entry as one line of a session file, newline
// included: the inverse of [DecodeEntry], for carrying entries between
// processes (fleet mode sends each step's entries this way).
func EncodeEntry(e Entry) ([]byte, error) {
	return encodeEntry(e)
}
