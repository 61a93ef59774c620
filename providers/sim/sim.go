package sim

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// Sim is one simulated GPU inference server running in real time (or on
// an injected clock). It satisfies engine.Provider; Submit gives servers a
// per-token view for streaming.
type Sim struct {
	prof  Profile
	clock Clock
	seed  int64

	mu       sync.Mutex
	core     *core
	lim      *limiter
	closed   bool
	rejected uint64 // 429s

	wake      chan struct{} // cap 1: work arrived
	stop      chan struct{}
	stopped   chan struct{}
	closeOnce sync.Once
}

var (
	_ engine.Provider  = (*Sim)(nil)
	_ engine.Describer = (*Sim)(nil)
)

// Option configures a Sim.
type Option func(*Sim)

// WithSeed seeds output lengths and step jitter (default 1). Runs with the
// same seed, profile and request sequence are reproducible.
func WithSeed(seed int64) Option { return func(s *Sim) { s.seed = seed } }

// WithClock replaces wall-clock time (tests use a VirtualClock).
func WithClock(c Clock) Option { return func(s *Sim) { s.clock = c } }

// maxLag is how far the driver may run behind real time and still keep
// steps back to back on the model's timeline. Timer wake-ups are late by
// ~0.1-1 ms, and on a busy 2-core machine the driver goroutine can be
// descheduled for tens of milliseconds; restarting the timeline from "now"
// after each such delay would slow the simulated GPU by the time lost, and
// a loaded machine would show a slower server. So the lateness is absorbed:
// late steps run back to back until the timeline catches up, and only a
// long stall (or an idle gap) restarts it at the current time.
const maxLag = 250 * time.Millisecond

// New starts a simulator of profile p. Close stops it.
func New(p Profile, opts ...Option) (*Sim, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	s := &Sim{
		prof:    p,
		clock:   RealClock{},
		seed:    1,
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	s.core = newCore(p, s.seed)
	s.lim = newLimiter(p, s.clock.Now())
	go s.loop()
	return s, nil
}

// Profile returns the profile the simulator runs.
func (s *Sim) Profile() Profile { return s.prof }

// Describe names the target for results and the dashboard header.
func (s *Sim) Describe() engine.Target {
	return engine.Target{Provider: "sim", Model: s.prof.Model + " (simulated)", Profile: s.prof.Name}
}

// Stats is the scheduler's state, as vLLM's /metrics reports it.
type Stats struct {
	Running          int     // vllm:num_requests_running
	Waiting          int     // vllm:num_requests_waiting
	KVUsage          float64 // vllm:kv_cache_usage_perc (0..1)
	KVBlocks         int
	Preemptions      uint64 // vllm:num_preemptions_total
	GenerationTokens uint64 // vllm:generation_tokens_total
	PromptTokens     uint64 // vllm:prompt_tokens_total (includes recomputation)
	Finished         uint64 // vllm:request_success_total
	RateLimited      uint64 // requests refused with 429
	Steps            uint64
	Busy             time.Duration // simulated GPU time spent in steps
}

// Stats reports the scheduler's current state.
func (s *Sim) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.core
	return Stats{
		Running:          len(c.running),
		Waiting:          c.nWaiting,
		KVUsage:          c.kvUsage(),
		KVBlocks:         c.p.KVBlocks,
		Preemptions:      c.stats.preemptions,
		GenerationTokens: c.stats.genTokens,
		PromptTokens:     c.stats.promptTokens,
		Finished:         c.stats.finished,
		RateLimited:      s.rejected,
		Steps:            c.stats.steps,
		Busy:             c.stats.busy,
	}
}

// Close stops the simulator; requests still in it fail. It is safe to call
// more than once.
func (s *Sim) Close() error {
	s.closeOnce.Do(func() {
		close(s.stop)
		<-s.stopped
		s.mu.Lock()
		defer s.mu.Unlock()
		s.closed = true
		c := s.core
		abort := func(q *seq) {
			if q.state == stateRunning || q.state == stateWaiting {
				q.state = stateRemoved
				close(q.done)
			}
		}
		for _, q := range c.running {
			abort(q)
		}
		for i := 0; i < c.waiting.n; i++ {
			abort(c.waiting.buf[(c.waiting.head+i)%len(c.waiting.buf)])
		}
		c.running, c.waiting, c.nWaiting = nil, deque{}, 0
	})
	return nil
}

// errClosed is what requests get from a closed simulator.
func errClosed() *engine.Failure {
	return &engine.Failure{Class: engine.ClassConnection, Message: "simulator closed"}
}

// newSeq turns a request into a sequence: it validates the request against
// the model's context length and KV capacity and draws its output length.
// Per-request randomness comes from the simulator seed and the request's
// Seed and ID, so it does not depend on arrival order.
func (s *Sim) newSeq(req engine.Request, ignoreEOS bool) (*seq, int, error) {
	p := &s.prof
	prompt := max(req.PromptTokens, 1)
	h := requestHash(s.seed, req.Seed, req.ID)
	q := &seq{prompt: prompt, done: make(chan struct{})}
	asked := req.MaxTokens
	if asked > 0 {
		q.outLen, q.finish = asked, "length"
		if !ignoreEOS && unit(h) < p.EarlyStop {
			// Ends at EOS somewhere in the second half of its budget.
			lo := (asked + 1) / 2
			q.outLen = lo + int(splitmix64(h)%uint64(asked-lo+1))
			if q.outLen < asked {
				q.finish = "stop"
			}
		}
	} else {
		d := max(p.DefaultMaxTokens, 2)
		q.outLen = d/2 + int(splitmix64(h)%uint64(d))
		q.finish = "stop"
		if room := p.MaxModelLen - prompt; q.outLen > room {
			q.outLen, q.finish = room, "length"
		}
		asked = q.outLen
	}
	if prompt+asked > p.MaxModelLen || q.outLen < 1 {
		return nil, asked, &engine.Failure{Class: engine.ClassClient, Status: 400, Message: fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			p.MaxModelLen, prompt+asked, prompt, asked)}
	}
	if need := (prompt + q.outLen + p.BlockSize - 1) / p.BlockSize; need > p.KVBlocks {
		return nil, asked, &engine.Failure{Class: engine.ClassClient, Status: 400, Message: fmt.Sprintf(
			"request needs %d KV-cache tokens but the server holds only %d", prompt+q.outLen, p.KVBlocks*p.BlockSize)}
	}
	return q, asked, nil
}

// admit runs the gateway part of a request: frontend delay, validation and
// rate limits. It returns the sequence ready to enqueue and the rate-limit
// headers to report (nil without limits).
func (s *Sim) admit(ctx context.Context, req engine.Request, ignoreEOS bool) (*seq, map[string]string, error) {
	if d := s.prof.FrontendDelay; d > 0 {
		if !s.clock.SleepUntil(s.clock.Now().Add(d), ctx.Done()) {
			return nil, nil, ctx.Err()
		}
	}
	q, asked, err := s.newSeq(req, ignoreEOS)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errClosed()
	}
	var hdr map[string]string
	if s.lim != nil {
		var f *engine.Failure
		hdr, f = s.lim.take(s.clock.Now(), q.prompt+asked)
		if f != nil {
			s.rejected++
			return nil, hdr, f
		}
	}
	return q, hdr, nil
}

// enqueue hands q to the scheduler and wakes the driver.
func (s *Sim) enqueue(q *seq) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errClosed()
	}
	q.arrived = s.clock.Now()
	s.core.add(q)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// cancel removes q from the scheduler; false means it had already finished.
func (s *Sim) cancel(q *seq) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.remove(q)
}

// Do runs one request to completion. The scheduler records each token
// into tr at the end of the step that produced it while Do waits, so Do
// itself allocates nothing per token.
func (s *Sim) Do(ctx context.Context, req engine.Request, tr *engine.Trace) error {
	tr.Start(s.clock.Now())
	q, hdr, err := s.admit(ctx, req, false)
	if hdr != nil {
		rh := engine.RateHeaders{Limits: hdr}
		if f, ok := err.(*engine.Failure); ok {
			rh.RetryAfter = f.RetryAfter
		}
		tr.RateLimit(rh)
	}
	if err != nil {
		return err
	}
	q.tr = tr
	if err := s.enqueue(q); err != nil {
		return err
	}
	select {
	case <-q.done:
		if q.state != stateDone {
			return errClosed()
		}
		return nil
	case <-ctx.Done():
		if !s.cancel(q) {
			return nil // finished just as ctx ended
		}
		return ctx.Err()
	}
}

// loop is the real-time driver: it plans a step, sleeps until the step's
// end and commits it, back to back while there is work, and blocks when
// there is none.
func (s *Sim) loop() {
	defer close(s.stopped)
	var prevEnd time.Time
	for {
		s.mu.Lock()
		for s.core.idle() {
			s.mu.Unlock()
			select {
			case <-s.wake:
			case <-s.stop:
				return
			}
			s.mu.Lock()
		}
		pl := s.core.plan()
		s.mu.Unlock()
		if pl.scheduled == 0 {
			if pl.preempted > 0 {
				continue // memory was freed: plan again at once
			}
			// Nothing fits (cannot happen for validated requests): wait for
			// a change rather than spin.
			select {
			case <-s.wake:
			case <-s.stop:
				return
			}
			continue
		}
		start := prevEnd
		if now := s.clock.Now(); now.Sub(start) > maxLag {
			start = now
		}
		if pl.admitted.After(start) {
			start = pl.admitted
		}
		end := start.Add(pl.dur)
		if !s.clock.SleepUntil(end, s.stop) {
			return
		}
		s.mu.Lock()
		s.core.commit(end)
		s.mu.Unlock()
		prevEnd = end
	}
}
