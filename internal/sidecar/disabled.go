package sidecar

import (
	"context"
	"fmt"
	"os"
	"time"
)

// SettingsPoll is how often a disabled sidecar looks whether its
// settings files changed.
const SettingsPoll = 2 * time.Second

// ServeDisabled serves a sidecar that cannot advise because setting it
// up failed (why): a settings file is broken, say one in a repository
// the user cloned. Exiting would make every later hook of the session
// start another sidecar, each reading the same files; this one answers
// every hook at once with nothing (the first is told why, for
// hook.log) until ctx ends, the session ends, it idles, or one of files
// changes, when it returns so that the next hook starts a sidecar that
// reads them again. o.Info.Reviewer says why.
func ServeDisabled(ctx context.Context, why error, files []string, o ServeOptions, logf func(string, ...any)) error {
	msg := fmt.Sprintf("cannot advise: %v", why)
	logf("%s; answering every hook with nothing until a settings file changes", msg)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer cancel()
		if changed := AwaitChange(ctx, files, SettingsPoll, nil); changed != "" {
			logf("%s changed: stopping, so that the next hook starts a sidecar that reads it", changed)
		}
	}()
	o.Info.Reviewer = "none: " + msg
	sc := New(Options{Key: o.Info.Key, Disabled: msg, Logf: logf})
	return Serve(ctx, sc, o)
}

// AwaitChange returns the first of files whose size, time or identity
// changed (or that appeared or went), looking every poll, or "" once ctx
// is done. It closes seen, when not nil, once it has looked at them
// first.
func AwaitChange(ctx context.Context, files []string, poll time.Duration, seen chan<- struct{}) string {
	stat := func(f string) os.FileInfo { fi, _ := os.Stat(f); return fi }
	first := make([]os.FileInfo, len(files))
	for i, f := range files {
		first[i] = stat(f)
	}
	if seen != nil {
		close(seen)
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ""
		case <-t.C:
		}
		for i, f := range files {
			now, was := stat(f), first[i]
			if (now == nil) != (was == nil) || now != nil && (!os.SameFile(now, was) || now.Size() != was.Size() || !now.ModTime().Equal(was.ModTime())) {
				return f
			}
		}
	}
}
