package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// SyncPolicy says when a session flushes its file to stable storage
// (fsync). Every policy hands each line to the operating system before
// Append returns, which is enough to survive the process being killed;
// syncing is what survives a power loss or a kernel crash.
type SyncPolicy int

const (
	// SyncOnClose syncs when the session is closed and when [Session.Sync]
	// is called. A power loss can lose appends made since the last sync.
	SyncOnClose SyncPolicy = iota
	// SyncEveryAppend syncs before every Append returns. It costs a disk
	// flush per entry (milliseconds on most disks).
	SyncEveryAppend
)

// Options tune how a session writes.
type Options struct {
	// Sync is the fsync policy; the zero value is SyncOnClose.
	Sync SyncPolicy
	// Now stamps new entries and sessions; nil means time.Now.
	Now func() time.Time
	// DropBodies forgets each entry's body once it is written (and the
	// bodies of the entries Open reads), keeping only ids, parents and
	// times, so a long session costs no memory per entry beyond those:
	// for a writer that never reads back, such as an advisor's
	// transcript. Entries read from such a session have a nil Body.
	DropBodies bool
	// Lock makes [Open] take the session's writer lock and hold it until
	// Close, so that a second writer, in this process or another, gets a
	// [*LockedError] instead of interleaving its entries with the
	// first's. The lock is an flock(2) on a lock file beside the session
	// ([LockFile]); the kernel drops it when its process ends, however it
	// ends, and the next writer takes over the file a crashed one left.
	// Readers ([ReadFile], [Manager.ForkFile]) neither take nor heed it.
	// Where the file system cannot lock, and on systems other than Unix,
	// sessions open without a lock. [Manager.Attached] never locks: a
	// sidecar guards its session itself.
	Lock bool
}

func (o Options) now() time.Time {
	t := time.Now()
	if o.Now != nil {
		t = o.Now()
	}
	return t.UTC().Truncate(time.Millisecond)
}

// Session is an open session file: its entries in memory and its file open
// for appending. See the package documentation for the concurrency and
// durability guarantees.
type Session struct {
	path      string
	opts      Options
	header    Header
	recovered *TruncatedError

	// writeMu serialises everything that writes the file or moves the
	// leaf. Its holder may read the fields under mu without taking mu,
	// because only writeMu's holder changes them.
	writeMu sync.Mutex
	f       *os.File  // nil once closed
	lock    *fileLock // the writer lock with Options.Lock; released at Close
	size    int64     // bytes in the file
	broken  error     // a failed write that could not be undone

	// mu guards the in-memory state. It is never held across I/O, so
	// readers never wait for the disk.
	mu      sync.RWMutex
	entries []Entry
	spans   []span
	index   map[string]int
	leaf    string
	changed chan struct{} // closed at the next append or at Close
}

// Open opens an existing session file for reading and appending.
//
// A file that ends in a partial line (a crash during a write) is repaired
// first: the partial line is copied into a file named torn-line*.part in
// the session's artifacts folder, then cut off, so the file is valid JSONL
// again; [Session.Recovered] reports it. A last line that is whole but
// lacks its newline gets one. Any other unreadable line is a
// [*LineError] and the file is left as it is.
//
// With [Options.Lock], Open takes the writer lock before it reads or
// repairs anything, and returns a [*LockedError] when another writer
// holds it.
func Open(path string, opts Options) (*Session, error) {
	if _, err := artifactsDir(path); err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	var lock *fileLock
	if opts.Lock {
		if lock, err = lockSession(path); err != nil {
			f.Close()
			var locked *LockedError
			if errors.As(err, &locked) {
				return nil, locked
			}
			return nil, fmt.Errorf("open session %s: %w", path, err)
		}
	}
	s, err := load(f, path, opts)
	if err != nil {
		lock.release()
		f.Close()
		return nil, err
	}
	s.lock = lock
	return s, nil
}

func load(f *os.File, path string, opts Options) (*Session, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", path, err)
	}
	p, err := parse(data, path)
	var torn *TruncatedError
	if err != nil && !errors.As(err, &torn) {
		return nil, err
	}
	if p.header.Version != Version {
		return nil, fmt.Errorf("open session %s: format version %d: this vigil appends only to version %d", path, p.header.Version, Version)
	}
	size := int64(len(data))
	if p.good < size {
		if torn != nil {
			if torn.SavedTo, err = saveTorn(path, torn.Line, data[torn.Offset:]); err != nil {
				return nil, fmt.Errorf("open session %s: keep partial last line before repairing: %w", path, err)
			}
		}
		if err := f.Truncate(p.good); err != nil {
			return nil, fmt.Errorf("open session %s: cut partial last line: %w", path, err)
		}
		size = p.good
	}
	if p.needNewline {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			return nil, fmt.Errorf("open session %s: end last line: %w", path, err)
		}
		size++
	}
	if p.good < int64(len(data)) || p.needNewline {
		if err := f.Sync(); err != nil {
			return nil, fmt.Errorf("open session %s: sync repair: %w", path, err)
		}
	}
	if opts.DropBodies {
		for i := range p.entries {
			p.entries[i].Body = nil
		}
	}
	return &Session{
		path:      path,
		opts:      opts,
		header:    p.header,
		recovered: torn,
		f:         f,
		size:      size,
		entries:   p.entries,
		spans:     p.spans,
		index:     p.index,
		leaf:      p.leaf,
		changed:   make(chan struct{}),
	}, nil
}

// Create creates a new session file at path, which must end in .jsonl and
// must not exist, and opens it. The header is written whole or not at all:
// the file appears under its name only once the header is on disk
// (synced, together with its folder). Version 0 in h means [Version]; a
// zero Created means now.
func Create(path string, h Header, opts Options) (*Session, error) {
	if _, err := artifactsDir(path); err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	if h.Version == 0 {
		h.Version = Version
	}
	switch {
	case h.Version != Version:
		return nil, fmt.Errorf("create session %s: version %d: this vigil writes version %d", path, h.Version, Version)
	case h.ID == "":
		return nil, fmt.Errorf("create session %s: header has no id", path)
	}
	if h.Created.IsZero() {
		h.Created = opts.now()
	}
	line, err := encodeHeader(h)
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	if err := createFile(path, [][]byte{line}); err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	return Open(path, opts)
}

// File returns the path of the session file.
func (s *Session) File() string { return s.path }

// ArtifactsDir returns the session's artifacts folder: the file's path
// without .jsonl. It holds the advisor's transcript ([AdvisorTranscript]),
// subagent sessions and anything else that belongs to the session, and is
// created by whoever first writes into it.
func (s *Session) ArtifactsDir() string {
	dir, _ := artifactsDir(s.path) // checked when the session was opened
	return dir
}

// Header returns the session's header.
func (s *Session) Header() Header { return s.header }

// ID returns the session's id.
func (s *Session) ID() string { return s.header.ID }

// Recovered returns the partial last line that Open cut off the file, or
// nil if the file was whole.
func (s *Session) Recovered() *TruncatedError { return s.recovered }

// Sync flushes every append so far to stable storage.
func (s *Session) Sync() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.f == nil {
		return fmt.Errorf("sync session %s: %w", s.path, ErrClosed)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("sync session %s: %w", s.path, err)
	}
	return nil
}

// Close syncs and closes the file and releases the writer lock, if it
// holds one. Reading methods keep working on what was read and appended;
// Append returns [ErrClosed]. Channels returned by [Session.Changed] are
// closed. Closing twice is not an error.
func (s *Session) Close() error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	if s.f == nil {
		return nil
	}
	errSync := s.f.Sync()
	errClose := s.f.Close()
	s.f = nil
	// After the file is closed: the next writer reads it whole.
	errLock := s.lock.release()
	s.lock = nil
	s.mu.Lock()
	close(s.changed)
	s.mu.Unlock()
	if err := errors.Join(errSync, errClose, errLock); err != nil {
		return fmt.Errorf("close session %s: %w", s.path, err)
	}
	return nil
}

// Drop closes the session and deletes its artifacts folder and its file,
// as [Remove] does. Close the sessions that live in the artifacts folder
// (the advisor's transcript, subagents) first: a file still open there
// would take its later appends with it, unseen.
func (s *Session) Drop() error {
	if err := s.Close(); err != nil {
		return fmt.Errorf("drop session %s: %w", s.path, err)
	}
	return Remove(s.path)
}
