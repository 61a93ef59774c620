package engine

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Run is one sweep. Create it with New, start it with Start, steer it
// through its Controller methods.
type Run struct {
	p    Provider
	plan Plan
	cfg  options

	ctl   chan control
	start time.Time
	pub   *publisher

	// Workers. target is read on every loop of every worker; alive marks
	// the slots that have a goroutine, so that a quick down-then-up never
	// runs two workers on one slot.
	target  atomic.Int64
	paused  atomic.Bool
	wmu     sync.Mutex
	alive   []bool
	resume  chan struct{} // closed when a pause ends
	workers sync.WaitGroup
	nextID  atomic.Uint64

	statsMu sync.Mutex
	st      stats // guarded by statsMu

	// Loop-owned state (only the sweep loop goroutine touches these).
	levels  []LevelResult
	changes []Change
	knee    *Knee
	note    string
	health  healthProbe
	hasSLO  bool
}

var _ Controller = (*Run)(nil)

// Option configures a Run (functional options, as in vegeta).
type Option func(*options)

type options struct {
	workload   Workload
	target     Target
	seed       int64
	version    string
	snapEvery  time.Duration
	liveWindow time.Duration
	kneeRule   KneeRule
	warnings   []string
	slo        SLO
	cost       Cost
}

// WithSLO sets service-level objectives: goodput per level, verdicts and
// the highest concurrency that meets them.
func WithSLO(s SLO) Option { return func(o *options) { o.slo = s } }

// WithCost sets prices for cost per request and per million output tokens.
func WithCost(c Cost) Option { return func(o *options) { o.cost = c } }

// WithWorkload sets the request shape.
func WithWorkload(w Workload) Option { return func(o *options) { o.workload = w } }

// WithTarget names what is measured (for results and the dashboard header).
func WithTarget(t Target) Option { return func(o *options) { o.target = t } }

// WithSeed makes prompt variation reproducible.
func WithSeed(s int64) Option { return func(o *options) { o.seed = s } }

// WithVersion stamps the results with the kneepoint version.
func WithVersion(v string) Option { return func(o *options) { o.version = v } }

// WithSnapshotEvery sets the snapshot interval (default and minimum 250 ms
// in production; tests may go lower).
func WithSnapshotEvery(d time.Duration) Option { return func(o *options) { o.snapEvery = d } }

// WithKneeRule overrides the knee thresholds.
func WithKneeRule(k KneeRule) Option { return func(o *options) { o.kneeRule = k } }

// WithWarnings adds harness warnings known before the run (e.g. from setup).
func WithWarnings(w ...string) Option {
	return func(o *options) { o.warnings = append(o.warnings, w...) }
}

// New prepares a run; nothing is sent until Start.
func New(p Provider, plan Plan, opts ...Option) *Run {
	r := &Run{
		p: p, plan: plan,
		ctl: make(chan control, 64),
		cfg: options{snapEvery: 250 * time.Millisecond, liveWindow: 5 * time.Second, kneeRule: DefaultKneeRule()},
	}
	for _, o := range opts {
		o(&r.cfg)
	}
	r.hasSLO = !r.cfg.slo.IsZero()
	if r.cfg.workload.PromptTokens == 0 && r.cfg.workload.MaxTokens == 0 {
		r.cfg.workload = Workload{PromptTokens: 150, MaxTokens: 128, Stream: true}
	}
	return r
}

// Start begins the sweep and returns its event channel, which the run
// closes after the Finished event. The reader must drain the channel until
// it is closed. Cancelling ctx stops the run like Stop.
func (r *Run) Start(ctx context.Context) <-chan Event {
	r.start = time.Now()
	r.pub = newPublisher()
	r.st = newStats(r.start, r.cfg.liveWindow)
	r.health = newHealthProbe(r.start)
	go r.loop(ctx)
	return r.pub.out
}

// control is a request from a Controller method to the sweep loop.
type control struct {
	kind   controlKind
	n      int
	delta  int
	factor float64
	reason string
}

type controlKind int

const (
	ctlSet controlKind = iota
	ctlAdd
	ctlScale
	ctlResume
	ctlPause
	ctlNext
	ctlStop
)

func (r *Run) send(c control) {
	select {
	case r.ctl <- c:
	default: // a flood of key presses: dropping one is better than blocking the UI
	}
}

func (r *Run) SetConcurrency(n int)       { r.send(control{kind: ctlSet, n: n}) }
func (r *Run) AddConcurrency(delta int)   { r.send(control{kind: ctlAdd, delta: delta}) }
func (r *Run) ScaleConcurrency(f float64) { r.send(control{kind: ctlScale, factor: f}) }
func (r *Run) Resume()                    { r.send(control{kind: ctlResume}) }
func (r *Run) TogglePause()               { r.send(control{kind: ctlPause}) }
func (r *Run) NextLevel()                 { r.send(control{kind: ctlNext}) }
func (r *Run) Stop(reason string)         { r.send(control{kind: ctlStop, reason: reason}) }

// apply computes the concurrency a control asks for from the current one.
func (c control) apply(cur int) int {
	n := cur
	switch c.kind {
	case ctlSet:
		n = c.n
	case ctlAdd:
		n = cur + c.delta
	case ctlScale:
		n = int(math.Round(float64(cur) * c.factor))
	}
	return max(n, 1)
}

// setTarget changes how many workers run. Going up starts workers at once,
// their first requests spread evenly over ramp: started together, requests
// of equal length would finish together and the closed loop would keep
// them in lock-step waves that no real client population shows. Going down
// lets surplus workers finish their current request and exit.
func (r *Run) setTarget(ctx context.Context, n int, ramp time.Duration) {
	r.target.Store(int64(n))
	r.wmu.Lock()
	defer r.wmu.Unlock()
	for len(r.alive) < n {
		r.alive = append(r.alive, false)
	}
	var fresh []int
	for slot := 0; slot < n; slot++ {
		if !r.alive[slot] {
			fresh = append(fresh, slot)
		}
	}
	for i, slot := range fresh {
		r.alive[slot] = true
		r.workers.Add(1)
		delay := time.Duration(0)
		if len(fresh) > 1 {
			delay = ramp * time.Duration(i) / time.Duration(len(fresh))
		}
		go r.worker(ctx, slot, delay)
	}
}

// keep reports whether a worker's slot is still wanted; if not, the worker
// is marked gone under the same lock setTarget uses.
func (r *Run) keep(slot int) bool {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if int64(slot) < r.target.Load() {
		return true
	}
	r.alive[slot] = false
	return false
}

// setPaused stops or restarts sending. Workers check it before each request.
func (r *Run) setPaused(p bool) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if p == r.paused.Load() {
		return
	}
	if p {
		r.resume = make(chan struct{})
	} else {
		close(r.resume)
	}
	r.paused.Store(p)
}

// pauseGate returns a channel to wait on while paused, or nil.
func (r *Run) pauseGate() <-chan struct{} {
	if !r.paused.Load() {
		return nil
	}
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if !r.paused.Load() {
		return nil
	}
	return r.resume
}
