package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// What a stalled fault run prints, so that it is diagnosed from one run:
// the state of each session left incomplete (its consumer, its lease, its
// owner's liveness), the goroutines of the live workers (SIGQUIT makes Go
// dump them into their logs) and the log lines about those sessions.

// diagShown bounds the sessions a diagnosis details.
const diagShown = 12

// diagnose logs why the sessions whose notes fell short of want are
// stuck, then ends the live workers with SIGQUIT and logs their stacks.
// notes holds the distinct notes each session received.
func (f *faultFleet) diagnose(js jetstream.JetStream, steps jetstream.Stream, notes []int, want int) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f.mu.Lock()
	f.stopping = true // no replacement for the workers SIGQUIT ends
	alive := map[string]*faultProc{}
	for _, p := range f.procs {
		alive[p.id] = p
	}
	f.mu.Unlock()
	var stuck []string
	for i, n := range notes {
		if n < want {
			stuck = append(stuck, fmt.Sprintf("s%d", i))
		}
	}
	f.tb.Logf("diagnosis: %d of %d sessions incomplete; live workers %v", len(stuck), len(notes), keys(alive))
	if info, err := js.Consumer(ctx, StepStream(faultTenant), dispatchConsumer); err == nil {
		ci := info.CachedInfo()
		f.tb.Logf("diagnosis: dispatch consumer: ack floor %d, pending %d, ack pending %d, redelivered %d, waiting %d",
			ci.AckFloor.Stream, ci.NumPending, ci.NumAckPending, ci.NumRedelivered, ci.NumWaiting)
	}
	kv, err := js.KeyValue(ctx, LeaseBucket(faultTenant))
	if err != nil {
		f.tb.Logf("diagnosis: lease bucket: %v", err)
	}
	// A summary of all of them, by owner and state, and the first few in full.
	summary := map[string]int{}
	for i, sess := range stuck {
		var line string
		state := ""
		if c, err := steps.Consumer(ctx, sessionConsumerPrefix+sess); err != nil {
			line = fmt.Sprintf("consumer: %v", err)
			state = "no consumer"
		} else {
			ci := c.CachedInfo()
			line = fmt.Sprintf("consumer: ack floor %d (stream %d), delivered %d, pending %d, ack pending %d, redelivered %d, waiting %d",
				ci.AckFloor.Consumer, ci.AckFloor.Stream, ci.Delivered.Consumer, ci.NumPending, ci.NumAckPending, ci.NumRedelivered, ci.NumWaiting)
			state = fmt.Sprintf("ack pending %d, pending>0 %v, waiting %d", ci.NumAckPending, ci.NumPending > 0, ci.NumWaiting)
		}
		holder := "-"
		if kv != nil {
			e, err := kv.Get(ctx, sess)
			switch {
			case err == nil:
				holder = string(e.Value())
				_, live := alive[holder]
				line += fmt.Sprintf("; lease %s rev %d (created %v ago), worker alive %v", holder, e.Revision(), time.Since(e.Created()).Round(time.Millisecond), live)
				if !live {
					holder += " (dead)"
				}
			case errors.Is(err, jetstream.ErrKeyNotFound), errors.Is(err, jetstream.ErrKeyDeleted):
				line += "; no lease"
			default:
				line += fmt.Sprintf("; lease: %v", err)
			}
		}
		summary["lease "+holder+"; "+state]++
		if i < diagShown {
			f.tb.Logf("diagnosis: %s (%d of %d notes): %s", sess, notes[sessIndex(sess)], want, line)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(summary)) {
		f.tb.Logf("diagnosis: %d sessions: %s", summary[k], k)
	}
	for _, p := range alive {
		p.killed.Store(true)
		if err := p.cmd.Process.Signal(syscall.SIGQUIT); err != nil {
			f.tb.Logf("diagnosis: SIGQUIT to worker %s: %v", p.id, err)
		}
	}
	for _, p := range alive {
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			f.tb.Logf("diagnosis: worker %s did not exit on SIGQUIT", p.id)
		}
	}
	f.mu.Lock()
	all := slices.Clone(f.all)
	f.mu.Unlock()
	shown := stuck[:min(len(stuck), diagShown)]
	for _, p := range all {
		data, _ := os.ReadFile(p.log)
		var lines []string
		for line := range strings.SplitSeq(string(data), "\n") {
			for _, sess := range shown {
				if strings.Contains(line, "session "+sess+":") {
					lines = append(lines, line)
				}
			}
		}
		if len(lines) > 40 {
			lines = append(lines[:10:10], append([]string{"..."}, lines[len(lines)-30:]...)...)
		}
		if len(lines) > 0 {
			f.tb.Logf("diagnosis: worker %s's log about %v:\n%s", p.id, shown, strings.Join(lines, "\n"))
		}
		if _, live := alive[p.id]; live {
			f.tb.Logf("diagnosis: worker %s's goroutines in package fleet (count, longest wait, stack):\n%s", p.id, stacks(data, 12000))
		}
	}
}

func keys(m map[string]*faultProc) []string { return slices.Sorted(maps.Keys(m)) }

func sessIndex(sess string) int {
	var i int
	_, _ = fmt.Sscanf(sess, "s%d", &i)
	return i
}

var (
	// "goroutine 7 gp=0x… m=nil [chan receive, 3 minutes]:" (a SIGQUIT's
	// dump names gp and m; a panic's does not).
	goroutineHead = regexp.MustCompile(`^goroutine \d+ [^\[]*\[([^,\]]+)(?:, (\d+) minutes)?[^\]]*\]:`)
	frameArgs     = regexp.MustCompile(`\([^()]*\)$`)
	frameOffset   = regexp.MustCompile(` \+0x[0-9a-f]+.*$| in goroutine \d+$`)
)

// stacks groups the goroutines of a Go traceback in log by their stack
// (arguments and offsets dropped), keeps those in package fleet, and
// returns them most numerous first, within max bytes.
func stacks(log []byte, max int) string {
	i := bytes.Index(log, []byte("\ngoroutine "))
	if i < 0 {
		return "(no goroutine dump in the log)"
	}
	type group struct {
		n, minutes int
		stack      string
	}
	groups := map[string]*group{}
	for block := range strings.SplitSeq(string(log[i+1:]), "\n\n") {
		lines := strings.Split(strings.TrimSpace(block), "\n")
		m := goroutineHead.FindStringSubmatch(lines[0])
		if m == nil {
			continue
		}
		var b strings.Builder
		b.WriteString("[" + m[1] + "]\n")
		for _, l := range lines[1:] {
			l = frameOffset.ReplaceAllString(frameArgs.ReplaceAllString(l, "(...)"), "")
			b.WriteString(l + "\n")
		}
		st := b.String()
		if !strings.Contains(st, "internal/fleet.") {
			continue
		}
		g := groups[st]
		if g == nil {
			g = &group{stack: st}
			groups[st] = g
		}
		g.n++
		if min, err := strconv.Atoi(m[2]); err == nil && min > g.minutes {
			g.minutes = min
		}
	}
	list := make([]*group, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *group) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return strings.Compare(a.stack, b.stack)
	})
	var out strings.Builder
	for i, g := range list {
		s := fmt.Sprintf("%d goroutines, up to %d minutes:\n%s\n", g.n, g.minutes, g.stack)
		if out.Len()+len(s) > max {
			fmt.Fprintf(&out, "(%d more stacks left out)\n", len(list)-i)
			break
		}
		out.WriteString(s)
	}
	return out.String()
}

// TestStacksGroupsAWorkersGoroutines: the goroutines of a SIGQUIT dump
// are grouped by stack, those outside package fleet left out.
func TestStacksGroupsAWorkersGoroutines(t *testing.T) {
	dump := `worker w1: running
SIGQUIT: quit
PC=0x40816e m=0 sigcode=0

goroutine 7 gp=0xc0 m=nil [chan receive, 3 minutes]:
github.com/vigil-dev/vigil/internal/fleet.(*Worker).serve(0xc000, {0x1, 0x2}, {0xc0, 0x3})
	/w/internal/fleet/review.go:80 +0x6e fp=0xe0 sp=0xe0 pc=0x48
created by github.com/vigil-dev/vigil/internal/fleet.(*Worker).claim in goroutine 5
	/w/internal/fleet/worker.go:300 +0x1

goroutine 8 gp=0xc1 m=nil [chan receive, 7 minutes]:
github.com/vigil-dev/vigil/internal/fleet.(*Worker).serve(0xc001, {0x4, 0x5}, {0xc1, 0x3})
	/w/internal/fleet/review.go:80 +0x6e fp=0xe1 sp=0xe1 pc=0x48
created by github.com/vigil-dev/vigil/internal/fleet.(*Worker).claim in goroutine 6
	/w/internal/fleet/worker.go:300 +0x1

goroutine 9 gp=0xc2 m=nil [select]:
github.com/vigil-dev/vigil/internal/fleet.(*Worker).renew(0xc002, ...)
	/w/internal/fleet/worker.go:350 +0x2 fp=0xe2 sp=0xe2 pc=0x49

goroutine 2 gp=0xc3 m=nil [force gc (idle)]:
runtime.forcegchelper()
	/usr/local/go/src/runtime/proc.go:375 +0xb3 fp=0xe0 sp=0xe0 pc=0x44
`
	got := stacks([]byte(dump), 10_000)
	want := `2 goroutines, up to 7 minutes:
[chan receive]
github.com/vigil-dev/vigil/internal/fleet.(*Worker).serve(...)
	/w/internal/fleet/review.go:80
created by github.com/vigil-dev/vigil/internal/fleet.(*Worker).claim
	/w/internal/fleet/worker.go:300

1 goroutines, up to 0 minutes:
[select]
github.com/vigil-dev/vigil/internal/fleet.(*Worker).renew(...)
	/w/internal/fleet/worker.go:350

`
	if got != want {
		t.Errorf("stacks:\n%s\nwant:\n%s", got, want)
	}
}
