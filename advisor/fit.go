package advisor

// PromptRoom says whether a system prompt of the given size leaves room,
// in a model's context window of window tokens, for the session the
// advisor reviews: its context maintenance keeps what it sends below a
// threshold of the window, and re-primes from a tail of the session half
// that size less the system prompt, so a prompt past that half leaves the
// advisor nothing to review however it compacts. tokens is the prompt's
// estimate (bytes/4); a window of 0 or less (unknown) always has room.
func PromptRoom(tokens int64, window int) (ok bool, limit int64) {
	if window <= 0 {
		return true, 0
	}
	limit = threshold(window) / 2
	return tokens < limit, limit
}
