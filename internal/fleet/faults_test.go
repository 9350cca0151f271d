package fleet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/natstest"
)

// The fault tests run each worker as a process of its own (this test
// binary again, running TestFaultWorkerProcess) and kill it with SIGKILL,
// or restart the in-process nats-server under the load.

// The environment a fault worker process reads.
const (
	faultEnvURL   = "VIGIL_FAULT_WORKER_URL"
	faultEnvID    = "VIGIL_FAULT_WORKER_ID"
	faultEnvLease = "VIGIL_FAULT_WORKER_LEASE"
)

const faultTenant = "faults"

// faultReview is what a fault worker process writes to its stdout, a
// line per step reviewed.
type faultReview struct {
	Session   string `json:"session"`
	Seq       uint64 `json:"seq"`
	Delivered uint64 `json:"delivered"`
}

// faultConn connects as the fault tests' agents and workers do: they
// reconnect for ever, soon (the server restarts under them).
func faultConn(url, name string) (*nats.Conn, error) {
	return nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
}

// TestFaultWorkerProcess is a worker process of the fault tests, which
// run it; on its own it skips. It reviews with the per-step detector
// until it is killed, or its parent goes (its stdin closes).
func TestFaultWorkerProcess(t *testing.T) {
	url := os.Getenv(faultEnvURL)
	if url == "" {
		t.Skip("the worker process of the fault tests (they run it)")
	}
	id := os.Getenv(faultEnvID)
	lease, err := time.ParseDuration(os.Getenv(faultEnvLease))
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker %s: lease: %v\n", id, err)
		os.Exit(2)
	}
	go func() {
		// An orphan does not outlive its test.
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	nc, err := faultConn(url, "fault worker "+id)
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker %s: connect: %v\n", id, err)
		os.Exit(2)
	}
	var mu sync.Mutex
	out := json.NewEncoder(os.Stdout) // a line per Write: a pipe keeps it whole
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "%s worker %s: %s\n", time.Now().Format("15:04:05.000"), id, fmt.Sprintf(format, args...))
	}
	w, err := NewWorker(nc, WorkerOptions{
		Tenant:  faultTenant,
		ID:      id,
		Factory: perStepFactory,
		Limits:  Limits{LeaseTTL: lease},
		OnReviewed: func(r Reviewed) {
			mu.Lock()
			defer mu.Unlock()
			_ = out.Encode(faultReview{Session: r.Session, Seq: r.Seq, Delivered: r.Delivered})
		},
		OnSession: func(sess string, owned bool, start advisor.StartPoint) {
			if owned {
				logf("session %s: taken (start %v)", sess, start)
			} else {
				logf("session %s: let go", sess)
			}
		},
		Logf: logf,
	})
	if err != nil {
		logf("%v", err)
		os.Exit(2)
	}
	logf("running")
	err = w.Run(context.Background())
	logf("Run returned: %v", err)
	os.Exit(3)
}

// faultConfig sizes a fault run.
type faultConfig struct {
	Sessions, Steps int
	// Kills is how many times a worker is killed (SIGKILL) and replaced,
	// Restarts how many times the nats-server is shut down and started
	// again on its port and store, each at a random point of the load.
	Kills, Restarts int
	Seed            uint64
	Lease           time.Duration
	// Window is how many of its steps a session has unreviewed at most:
	// it publishes the next step once fewer wait.
	Window int
	// Stall is how long a run may go without a note before it is
	// failed as stalled. Default a minute.
	Stall time.Duration
}

// faultConfigFromEnv reads a fault run's size from the environment,
// FLEET_FAULT_*, over the defaults given.
func faultConfigFromEnv(def faultConfig) faultConfig {
	c := def
	c.Sessions = envInt("FLEET_FAULT_SESSIONS", c.Sessions)
	c.Steps = envInt("FLEET_FAULT_STEPS", c.Steps)
	if v, err := strconv.Atoi(os.Getenv("FLEET_FAULT_KILLS")); err == nil && v >= 0 {
		c.Kills = v
	}
	if v, err := strconv.Atoi(os.Getenv("FLEET_FAULT_RESTARTS")); err == nil && v >= 0 {
		c.Restarts = v
	}
	c.Lease = time.Duration(envInt("FLEET_FAULT_LEASE_MS", int(c.Lease/time.Millisecond))) * time.Millisecond
	c.Window = envInt("FLEET_FAULT_WINDOW", c.Window)
	c.Stall = time.Duration(envInt("FLEET_FAULT_STALL_S", int(max(c.Stall, time.Minute)/time.Second))) * time.Second
	if v, err := strconv.ParseUint(os.Getenv("FLEET_FAULT_SEED"), 10, 64); err == nil {
		c.Seed = v
	}
	if c.Seed == 0 {
		c.Seed = uint64(time.Now().UnixNano())
	}
	return c
}

// faultFigures is what a fault run measured.
type faultFigures struct {
	Steps             int // steps published (each acknowledged by the stream)
	PublishesRetried  int // Publish calls that failed and were retried under the same number
	Kills, Restarts   int
	Unreviewed        int // steps the sessions' consumers have not seen acknowledged at the end
	NotesMissing      int // steps whose note never reached the client
	NotesTwice        int // note ids Client.Notes delivered more than once
	NotesWrong        int // notes that are not the per-step detector's note of a step published
	Repeats           int64
	Redelivered       int // reviews of a step delivered more than once (Reviewed.Delivered > 1)
	ReviewedAgain     int // steps reported reviewed (acked) by more than one review
	StoredSteps       uint64
	StoredNotes       uint64
	UnexpectedExits   int
	WorkerRaces       int
	Wall              time.Duration
	WorkersSpawned    int
	ReviewsReported   int
	SessionsNotSeeded int
}

func (f faultFigures) String() string {
	return fmt.Sprintf("%d steps, %d kills, %d restarts in %v: %d unreviewed, %d notes missing, %d delivered twice, %d wrong; "+
		"%d publishes retried, %d notes repeated to the client (dropped by it), %d redelivered reviews, %d steps reviewed again; "+
		"stream holds %d steps, %d notes; %d worker processes, %d unexpected exits, %d with a data race",
		f.Steps, f.Kills, f.Restarts, f.Wall.Round(time.Millisecond), f.Unreviewed, f.NotesMissing, f.NotesTwice, f.NotesWrong,
		f.PublishesRetried, f.Repeats, f.Redelivered, f.ReviewedAgain, f.StoredSteps, f.StoredNotes, f.WorkersSpawned, f.UnexpectedExits, f.WorkerRaces)
}

// faultServer is the in-process nats-server of a fault run, JetStream on
// files, that can be restarted on the same port and store.
type faultServer struct {
	mu   sync.Mutex
	s    *server.Server
	opts server.Options
}

func startFaultServer(tb testing.TB) *faultServer {
	tb.Helper()
	fs := &faultServer{opts: *natstest.Options(tb)}
	fs.start(tb)
	// Later starts keep the port, so that clients reconnect to it.
	fs.opts.Port = fs.s.Addr().(*net.TCPAddr).Port
	tb.Cleanup(func() {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		natstest.Shutdown(tb, fs.s)
	})
	return fs
}

func (fs *faultServer) start(tb testing.TB) {
	tb.Helper()
	opts := fs.opts
	s := natstest.Run(tb, &opts)
	fs.mu.Lock()
	fs.s = s
	fs.mu.Unlock()
}

func (fs *faultServer) url() string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.s.ClientURL()
}

// restart shuts the server down (cleanly: its store is flushed) and
// starts a new one on the same port and store.
func (fs *faultServer) restart(tb testing.TB) {
	tb.Helper()
	fs.mu.Lock()
	s := fs.s
	fs.mu.Unlock()
	natstest.Shutdown(tb, s)
	fs.start(tb)
}

// faultProc is one worker process.
type faultProc struct {
	id     string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	killed atomic.Bool
	done   chan struct{}
	log    string
}

// faultFleet runs the worker processes of a fault run.
type faultFleet struct {
	tb    testing.TB
	url   string
	lease time.Duration
	dir   string

	mu       sync.Mutex
	procs    []*faultProc // running
	all      []*faultProc
	n        int
	stopping bool
	reviews  map[string]int // per step, how many reviews reported it
	redeliv  int
	reported int
	exits    []string
}

// spawn starts a worker process.
func (f *faultFleet) spawn() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopping {
		return
	}
	f.n++
	id := fmt.Sprintf("w%d", f.n)
	p := &faultProc{id: id, done: make(chan struct{}), log: filepath.Join(f.dir, id+".log")}
	logFile, err := os.Create(p.log)
	if err != nil {
		f.tb.Fatal(err)
	}
	p.cmd = exec.Command(os.Args[0], "-test.run=^TestFaultWorkerProcess$", "-test.timeout=1h")
	// GOTRACEBACK=all: a SIGQUIT of a stalled run dumps every goroutine.
	p.cmd.Env = append(os.Environ(), faultEnvURL+"="+f.url, faultEnvID+"="+id, faultEnvLease+"="+f.lease.String(), "GOTRACEBACK=all")
	p.cmd.Stderr = logFile
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		f.tb.Fatal(err)
	}
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		f.tb.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		f.tb.Fatalf("starting worker %s: %v", id, err)
	}
	f.procs = append(f.procs, p)
	f.all = append(f.all, p)
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var r faultReview
			if json.Unmarshal(sc.Bytes(), &r) != nil || r.Session == "" {
				continue // the test binary's own output
			}
			f.mu.Lock()
			f.reviews[noteID(r.Session, r.Seq, 0)]++
			f.reported++
			if r.Delivered > 1 {
				f.redeliv++
			}
			f.mu.Unlock()
		}
		err := p.cmd.Wait()
		_ = logFile.Close()
		if p.killed.Load() {
			return
		}
		// It died by itself: a failure of the run; replace it so that
		// the run can still end and say what else it saw.
		f.mu.Lock()
		f.exits = append(f.exits, fmt.Sprintf("worker %s exited: %v", id, err))
		f.procs = slices.DeleteFunc(f.procs, func(q *faultProc) bool { return q == p })
		f.mu.Unlock()
		f.spawn()
	}()
}

// kill kills the i-th running worker with SIGKILL, waits for it to be
// gone, and starts another.
func (f *faultFleet) kill(i int) string {
	f.mu.Lock()
	if len(f.procs) == 0 {
		f.mu.Unlock()
		return ""
	}
	p := f.procs[i%len(f.procs)]
	f.procs = slices.Delete(f.procs, i%len(f.procs), i%len(f.procs)+1)
	f.mu.Unlock()
	p.killed.Store(true)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		f.tb.Errorf("killing worker %s: %v", p.id, err)
	}
	<-p.done
	f.spawn()
	return p.id
}

// stop kills every worker and waits for them.
func (f *faultFleet) stop() {
	f.mu.Lock()
	f.stopping = true
	procs := slices.Clone(f.all)
	f.mu.Unlock()
	for _, p := range procs {
		p.killed.Store(true)
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_ = p.stdin.Close()
		<-p.done
	}
}

// races counts the worker processes whose log reports a data race, and
// logs the tail of each log when the run failed.
func (f *faultFleet) races(failed bool) int {
	n := 0
	for _, p := range f.all {
		data, _ := os.ReadFile(p.log)
		if bytes.Contains(data, []byte("WARNING: DATA RACE")) || bytes.Contains(data, []byte("panic: ")) {
			n++
			failed = true
		}
		if failed {
			if len(data) > 4000 {
				data = data[len(data)-4000:]
			}
			f.tb.Logf("worker %s's log (tail):\n%s", p.id, data)
		}
	}
	return n
}

// runFaults runs cfg.Sessions simulated agents of cfg.Steps steps each
// through 2 worker processes, killing one at cfg.Kills random points of
// the load (and starting another) and restarting the nats-server at
// cfg.Restarts others, and measures what reached the agents.
func runFaults(tb testing.TB, cfg faultConfig) faultFigures {
	tb.Logf("fault run: %d sessions x %d steps, %d kills, %d restarts, seed %d (FLEET_FAULT_SEED=%d replays the fault points)",
		cfg.Sessions, cfg.Steps, cfg.Kills, cfg.Restarts, cfg.Seed, cfg.Seed)
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x5eed))
	total := cfg.Sessions * cfg.Steps
	// The points of the load, as notes delivered, at which to strike.
	type fault struct {
		at      int
		restart bool
	}
	var faults []fault
	for range cfg.Kills {
		faults = append(faults, fault{at: 1 + rng.IntN(max(total-1, 1))})
	}
	for range cfg.Restarts {
		faults = append(faults, fault{at: total/5 + rng.IntN(max(total*3/5, 1)), restart: true})
	}
	slices.SortStableFunc(faults, func(a, b fault) int { return a.at - b.at })

	fs := startFaultServer(tb)
	limits := Limits{LeaseTTL: cfg.Lease}
	nc, err := faultConn(fs.url(), "fault agents")
	if err != nil {
		tb.Fatal(err)
	}
	defer nc.Close()
	ensureWith(tb, nc, faultTenant, limits)

	fl := &faultFleet{tb: tb, url: fs.url(), lease: cfg.Lease, dir: tb.TempDir(), reviews: map[string]int{}}
	defer fl.stop()

	bound := 3*time.Minute + time.Duration(total)*10*time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()

	// What the agents receive.
	var (
		mu        sync.Mutex
		counts    = map[string]int{}
		wrong     int
		delivered int   // distinct notes
		perSess   []int // distinct notes per session
		lastNote  = time.Now()
	)
	perSess = make([]int, cfg.Sessions)
	progress := make(chan struct{}, 1)
	allNotes := make(chan struct{})
	clients := make([]*Client, cfg.Sessions)
	for i := range clients {
		c, err := NewClient(ctx, nc, ClientOptions{Tenant: faultTenant, Session: fmt.Sprintf("s%d", i)})
		if err != nil {
			tb.Fatal(err)
		}
		defer c.Close()
		clients[i] = c
	}
	var readers sync.WaitGroup
	stopReading := make(chan struct{})
	defer func() {
		close(stopReading)
		readers.Wait()
	}()
	for i, c := range clients {
		sess := fmt.Sprintf("s%d", i)
		readers.Go(func() {
			for {
				select {
				case n := <-c.Notes():
					mu.Lock()
					counts[n.ID]++
					if ok := n.Kind == KindAside && n.Session == sess && n.Seq >= 1 && n.Seq <= uint64(cfg.Steps) && n.ID == noteID(sess, n.Seq, 0) &&
						n.Advice.Note == fmt.Sprintf("Reviewed entry a%s-%d carefully; consider checking its output", sess, n.Seq); !ok {
						wrong++
					} else if counts[n.ID] == 1 {
						delivered++
						perSess[i]++
						lastNote = time.Now()
						if delivered == total {
							close(allNotes)
						}
					}
					mu.Unlock()
					select {
					case progress <- struct{}{}:
					default:
					}
				case <-stopReading:
					return
				}
			}
		})
	}

	for range 2 {
		fl.spawn()
	}
	start := time.Now()

	// The faults, each once the load has delivered its share of notes.
	var retried atomic.Int64
	kills, restarts := 0, 0
	faultsDone := make(chan struct{})
	go func() {
		defer close(faultsDone)
		for _, f := range faults {
			for {
				mu.Lock()
				d := delivered
				mu.Unlock()
				if d >= f.at {
					break
				}
				select {
				case <-progress:
				case <-ctx.Done():
					return
				}
			}
			if f.restart {
				restarts++
				t0 := time.Now()
				fs.restart(tb)
				tb.Logf("restarted the nats-server at %d notes delivered (%v down)", f.at, time.Since(t0).Round(time.Millisecond))
			} else {
				kills++
				id := fl.kill(rng.IntN(2))
				tb.Logf("killed worker %s at %d notes delivered", id, f.at)
			}
		}
	}()

	// The agents: each publishes its steps with at most Window waiting
	// for review. A step Publish drops (the fleet unreachable a moment)
	// is published again under its number, as an agent that retries
	// would; the stream drops it if the first attempt was stored.
	var pubs sync.WaitGroup
	var pubErr atomic.Value
	for i, c := range clients {
		sess := fmt.Sprintf("s%d", i)
		pubs.Go(func() {
			for j := 1; j <= cfg.Steps; j++ {
				if err := c.WaitBacklogBelow(ctx, cfg.Window); err != nil {
					pubErr.CompareAndSwap(nil, fmt.Errorf("%s: waiting to publish step %d: %w", sess, j, err))
					return
				}
				seq, err := c.Publish(ctx, stepEntries(sess, j, false))
				if seq != uint64(j) {
					pubErr.CompareAndSwap(nil, fmt.Errorf("%s: step %d published as %d", sess, j, seq))
					return
				}
				for err != nil {
					retried.Add(1)
					// Retrying against the server, not waiting for a
					// goroutine: it is down or restarting.
					select {
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
						pubErr.CompareAndSwap(nil, fmt.Errorf("%s: step %d never published: %w", sess, j, err))
						return
					}
					st, nerr := NewStep(faultTenant, sess, seq, stepEntries(sess, j, false))
					if nerr != nil {
						pubErr.CompareAndSwap(nil, nerr)
						return
					}
					st.Published = time.Now()
					err = c.publish(ctx, st)
				}
			}
		})
	}
	// A run stalls when no note arrives for cfg.Stall (the ack wait and
	// the lease's time to live are seconds), or it runs out of its bound.
	stalled := false
	tick := time.NewTicker(time.Second)
	for !stalled {
		select {
		case <-allNotes:
		case <-tick.C:
			mu.Lock()
			if since := time.Since(lastNote); since > cfg.Stall {
				stalled = true
				tb.Errorf("%d of %d notes reached the agents, then none for %v", delivered, total, since.Round(time.Second))
			}
			mu.Unlock()
			continue
		case <-ctx.Done():
			stalled = true
			mu.Lock()
			tb.Errorf("%d of %d notes reached the agents within %v", delivered, total, bound)
			mu.Unlock()
		}
		break
	}
	tick.Stop()
	if stalled {
		cancel() // the faults and the agents stop
	}
	pubs.Wait()
	if err, _ := pubErr.Load().(error); err != nil && !stalled {
		tb.Error(err)
	}
	<-faultsDone
	wall := time.Since(start)

	// The checks below run on a context of their own: ctx may have run
	// out (a stall), and what the stall left is what to look at.
	pctx, pcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer pcancel()

	fig := faultFigures{Steps: total, PublishesRetried: int(retried.Load()), Kills: kills, Restarts: restarts, Wall: wall}
	// Every step reviewed, as the stream sees it: each session's
	// consumer has nothing pending or unacknowledged. The last review's
	// ack follows its note, and a worker killed in between leaves its
	// step to be reviewed again after the ack wait, so this is polled
	// (the server's state, bounded).
	js, err := jetstream.New(nc)
	if err != nil {
		tb.Fatal(err)
	}
	steps, err := js.Stream(pctx, StepStream(faultTenant))
	if err != nil {
		tb.Fatal(err)
	}
	if stalled {
		mu.Lock()
		notes := slices.Clone(perSess)
		mu.Unlock()
		fl.diagnose(js, steps, notes, cfg.Steps)
	}
	for {
		fig.Unreviewed = 0
		for i := range cfg.Sessions {
			cons, err := steps.Consumer(pctx, sessionConsumerPrefix+fmt.Sprintf("s%d", i))
			if err != nil {
				fig.Unreviewed += cfg.Steps
				continue
			}
			info := cons.CachedInfo()
			fig.Unreviewed += int(info.NumPending) + info.NumAckPending
		}
		if fig.Unreviewed == 0 || stalled || pctx.Err() != nil {
			break
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-pctx.Done():
		}
	}
	if info, err := steps.Info(pctx); err == nil {
		fig.StoredSteps = info.State.Msgs
	} else {
		tb.Error(err)
	}
	if notes, err := js.Stream(pctx, NoteStream(faultTenant)); err == nil {
		if info, err := notes.Info(pctx); err == nil {
			fig.StoredNotes = info.State.Msgs
		} else {
			tb.Error(err)
		}
	} else {
		tb.Error(err)
	}

	mu.Lock()
	fig.NotesMissing = total - delivered
	fig.NotesWrong = wrong
	for _, n := range counts {
		if n > 1 {
			fig.NotesTwice++
		}
	}
	mu.Unlock()
	for _, c := range clients {
		fig.Repeats += c.Repeats()
	}
	fl.stop()
	fl.mu.Lock()
	fig.Redelivered, fig.ReviewsReported, fig.WorkersSpawned, fig.UnexpectedExits = fl.redeliv, fl.reported, len(fl.all), len(fl.exits)
	for _, n := range fl.reviews {
		if n > 1 {
			fig.ReviewedAgain++
		}
	}
	exits := slices.Clone(fl.exits)
	fl.mu.Unlock()
	for _, e := range exits {
		tb.Error(e)
	}

	bad := fig.Unreviewed != 0 || fig.NotesMissing != 0 || fig.NotesTwice != 0 || fig.NotesWrong != 0 ||
		fig.StoredSteps != uint64(total) || fig.StoredNotes != 2*uint64(total) || fig.Kills != cfg.Kills || fig.Restarts != cfg.Restarts
	// A stall printed its own diagnosis, the workers' stacks in it.
	fig.WorkerRaces = fl.races((bad || tb.Failed()) && !stalled)
	tb.Logf("fault run: %v", fig)
	if fig.Unreviewed != 0 {
		tb.Errorf("%d steps unreviewed", fig.Unreviewed)
	}
	if fig.NotesMissing != 0 {
		tb.Errorf("%d notes never reached the agents", fig.NotesMissing)
	}
	if fig.NotesTwice != 0 {
		tb.Errorf("%d notes reached an agent twice", fig.NotesTwice)
	}
	if fig.NotesWrong != 0 {
		tb.Errorf("%d notes were not a step's note", fig.NotesWrong)
	}
	if fig.StoredSteps != uint64(total) {
		tb.Errorf("the steps stream holds %d steps, want %d (each once)", fig.StoredSteps, total)
	}
	if fig.StoredNotes != 2*uint64(total) {
		tb.Errorf("the notes stream holds %d messages, want %d (each step's note and its review's end, once)", fig.StoredNotes, 2*total)
	}
	if fig.WorkerRaces != 0 {
		tb.Errorf("%d worker processes reported a data race or a panic", fig.WorkerRaces)
	}
	if fig.Kills != cfg.Kills || fig.Restarts != cfg.Restarts {
		tb.Errorf("struck %d kills and %d restarts, want %d and %d", fig.Kills, fig.Restarts, cfg.Kills, cfg.Restarts)
	}
	return fig
}

// faultDefaults is the size the tests run at: the package's tests stay
// within a minute under -race on two cores. FLEET_FAULT_* override it
// (the load: FLEET_FAULT_SESSIONS=500 FLEET_FAULT_STEPS=100
// FLEET_FAULT_KILLS=20).
var faultDefaults = faultConfig{Sessions: 50, Steps: 20, Lease: time.Second, Window: 4}

// TestFaultsKillWorkers kills a worker process with SIGKILL at random
// points of the load (and starts another): every step is reviewed, and
// its note reaches the agent once.
func TestFaultsKillWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	def := faultDefaults
	def.Kills = 5
	runFaults(t, faultConfigFromEnv(def))
}

// TestFaultsRestartServer shuts the nats-server down and starts it again
// on its port and store under the load: the agents and workers
// reconnect, and every step is reviewed, its note reaching the agent
// once.
func TestFaultsRestartServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs worker processes")
	}
	def := faultDefaults
	def.Restarts = 1
	runFaults(t, faultConfigFromEnv(def))
}

// BenchmarkFleetFaults runs the fault load, 500 sessions x 100
// steps through 2 worker processes: kill -9 a worker at 20 random points
// (kills), and restart the nats-server once (restart); FLEET_FAULT_*
// change the sizes. It reports the figures of each.
//
//	go test -run '^$' -bench FleetFaults -benchtime 1x -timeout 1h ./internal/fleet/
func BenchmarkFleetFaults(b *testing.B) {
	full := faultConfig{Sessions: 500, Steps: 100, Lease: 2 * time.Second, Window: 4}
	for _, mode := range []string{"kills", "restart"} {
		def := full
		if mode == "kills" {
			def.Kills = 20
		} else {
			def.Restarts = 1
		}
		cfg := faultConfigFromEnv(def)
		b.Run(fmt.Sprintf("%s/%dx%d", mode, cfg.Sessions, cfg.Steps), func(b *testing.B) {
			for range b.N {
				f := runFaults(b, cfg)
				b.ReportMetric(float64(f.Steps), "steps")
				b.ReportMetric(float64(f.Kills), "kills")
				b.ReportMetric(float64(f.Restarts), "restarts")
				b.ReportMetric(float64(f.Unreviewed), "unreviewed")
				b.ReportMetric(float64(f.NotesMissing), "lost")
				b.ReportMetric(float64(f.NotesTwice), "twice")
				b.ReportMetric(float64(f.Redelivered), "redelivered")
				b.ReportMetric(float64(f.Repeats), "repeats")
				b.ReportMetric(float64(f.PublishesRetried), "retried")
				b.ReportMetric(f.Wall.Seconds(), "wall-s")
				cfg.Seed++ // another b.N round strikes elsewhere
			}
		})
	}
}
