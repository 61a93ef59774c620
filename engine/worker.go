package engine

import (
	"context"
	"math/rand/v2"
	"time"
)

// worker is one closed-loop slot: it sends its next request as soon as its
// last one ends (after any think time or rate-limit wait) until its slot is
// no longer wanted.
func (r *Run) worker(ctx context.Context, slot int, delay time.Duration) {
	defer r.workers.Done()
	if delay > 0 && !r.sleep(ctx, delay, false) {
		r.release(slot)
		return
	}
	tr := &Trace{gaps: make([]time.Duration, 0, 256)}
	rng := rand.New(rand.NewPCG(uint64(r.cfg.seed), uint64(slot)+1))
	consecutive := 0 // rate-limit failures in a row, for backoff without Retry-After
	ready := time.Now()
	for r.keep(slot) {
		if gate := r.pauseGate(); gate != nil {
			select {
			case <-gate:
			case <-ctx.Done():
				r.release(slot)
				return
			}
			ready = time.Now()
			continue // re-check the slot: the target may have changed while paused
		}
		if ctx.Err() != nil {
			r.release(slot)
			return
		}
		f := r.request(ctx, tr, rng, ready)
		ready = time.Now()

		wait := r.plan.ThinkTime
		if f != nil && (f.Class == ClassRateLimited || f.Class == ClassOverloaded) {
			// Etiquette: wait what the server asked (capped, jittered) before
			// the next request, visible as the backing-off state.
			wait = max(wait, r.backoff(f.RetryAfter, consecutive, rng))
			consecutive++
		} else if f == nil {
			consecutive = 0
		}
		if wait > 0 {
			if !r.sleep(ctx, wait, f != nil) {
				r.release(slot)
				return
			}
			ready = time.Now()
		}
	}
}

// release marks a slot free when its worker leaves for a reason other than
// keep (cancellation).
func (r *Run) release(slot int) {
	r.wmu.Lock()
	r.alive[slot] = false
	r.wmu.Unlock()
}

// sleep waits d, counting the worker as backing off when backingOff is set.
// It returns false when ctx ended the wait.
func (r *Run) sleep(ctx context.Context, d time.Duration, backingOff bool) bool {
	if backingOff {
		r.statsMu.Lock()
		r.st.backingOff++
		r.statsMu.Unlock()
		defer func() {
			r.statsMu.Lock()
			r.st.backingOff--
			r.statsMu.Unlock()
		}()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// backoff is the wait before the next attempt: the server's Retry-After,
// capped and jittered up to 20% upwards (never shorter than asked), or, when
// the server gave none, exponential from RetryBase with up to 25% downward
// jitter like the official SDKs, capped at 8 s.
func (r *Run) backoff(retryAfter time.Duration, n int, rng *rand.Rand) time.Duration {
	if retryAfter > 0 {
		ra := retryAfter
		if cap := r.plan.RetryAfterCap; cap > 0 && ra > cap {
			ra = cap
		}
		return ra + time.Duration(rng.Float64()*0.2*float64(ra))
	}
	base := r.plan.RetryBase
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	d := base << min(n, 10)
	d = min(d, 8*time.Second)
	return d - time.Duration(rng.Float64()*0.25*float64(d))
}

// retryable reports whether an opt-in retry may help, following the official
// SDKs: rate limits, overload, server errors, timeouts and connection errors.
func retryable(c ErrorClass) bool {
	switch c {
	case ClassRateLimited, ClassOverloaded, ClassServer, ClassTimeout, ClassConnection:
		return true
	}
	return false
}

// request sends one request, with opt-in retries, and records the outcome.
// ready is when the worker became free to send: the gap to the actual send
// is the dispatch lag.
func (r *Run) request(ctx context.Context, tr *Trace, rng *rand.Rand, ready time.Time) *Failure {
	req := Request{
		ID:           r.nextID.Add(1),
		Seed:         r.cfg.seed,
		PromptTokens: r.cfg.workload.PromptTokens,
		MaxTokens:    r.cfg.workload.MaxTokens,
	}
	first := time.Now()
	lag := first.Sub(ready)
	for attempt := 0; ; attempt++ {
		tr.reset()
		t0 := r.begin(lag, attempt)
		err := r.p.Do(ctx, req, tr)
		t1 := time.Now()
		f := Classify(err)
		if f == nil && tr.chunks == 0 {
			f = &Failure{Class: ClassStream, Message: "response carried no output tokens"}
		}
		if f != nil && attempt < r.plan.MaxRetries && retryable(f.Class) && ctx.Err() == nil {
			r.endAttempt(t0, t1, f)
			if !r.sleep(ctx, r.backoff(f.RetryAfter, attempt, rng), true) {
				return &Failure{Class: ClassCanceled, Message: "canceled during retry backoff"}
			}
			continue
		}
		r.finish(tr, f, t0, t1, first, attempt)
		return f
	}
}
