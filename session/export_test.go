package session

import "os"

// SwapFile replaces the session's file, so tests can make writes fail.
func SwapFile(s *Session, f *os.File) (old *os.File) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	old, s.f = s.f, f
	return old
}

// LocksSupported says whether Options.Lock locks on this system.
const LocksSupported = locksSupported
