package engine

import "time"

// begin counts a request going out and returns its start time. The slot is
// in flight from here until endAttempt or finish.
func (r *Run) begin(lag time.Duration, attempt int) time.Time {
	now := time.Now()
	r.statsMu.Lock()
	s := &r.st
	s.advance(now)
	s.inflight++
	if attempt == 0 {
		s.sent++
		s.live.at(now).lag.record(lag)
		if seg := s.seg; seg != nil && seg.measuring(now) {
			seg.sent++
			seg.lag.record(lag)
		}
	}
	r.statsMu.Unlock()
	return now
}

// endAttempt records a failed attempt that will be retried: it counts as a
// retry (and as a 429 seen), not as a failed request.
func (r *Run) endAttempt(t0, t1 time.Time, f *Failure) {
	r.statsMu.Lock()
	s := &r.st
	s.advance(t1)
	s.inflight--
	s.retries++
	r.noteFailure(f)
	if seg := s.seg; seg != nil && seg.measuring(t1) {
		seg.retries++
	}
	r.statsMu.Unlock()
}

// noteFailure updates the whole-run view of the last error and rate-limit
// hints. Caller holds statsMu.
func (r *Run) noteFailure(f *Failure) {
	s := &r.st
	if f.Class == ClassRateLimited {
		s.rateLimited++
	}
	if f.Message != "" {
		s.lastError = string(f.Class) + ": " + f.Message
	}
	if f.RetryAfter > 0 {
		s.lastRetryAfter = f.RetryAfter
	}
	if len(f.Headers) > 0 {
		s.lastHeaders = f.Headers
	}
}

// finish records a request's final outcome. Failed requests are counted by
// class and never enter latency or throughput.
func (r *Run) finish(tr *Trace, f *Failure, t0, t1, first time.Time, attempt int) {
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	s := &r.st
	s.advance(t1)
	s.inflight--
	seg := s.seg
	in := seg != nil && seg.measuring(t1)
	if in {
		seg.occupancy += t1.Sub(t0)
	}
	if f != nil {
		if f.Class == ClassCanceled && s.stopping {
			s.canceledAtStop++
			return
		}
		s.failed++
		s.errors[f.Class]++
		s.live.at(t1).fails++
		r.noteFailure(f)
		if in {
			seg.failed++
			seg.errors[f.Class]++
			if f.Class == ClassRateLimited {
				seg.rateLimited++
			}
			if f.Message != "" {
				seg.lastError = string(f.Class) + ": " + f.Message
			}
			r.checkCount(seg, t1)
		}
		return
	}
	s.succeeded++
	if tr.hasHeaders {
		if tr.headers.RetryAfter > 0 {
			s.lastRetryAfter = tr.headers.RetryAfter
		}
		if len(tr.headers.Limits) > 0 {
			s.lastHeaders = tr.headers.Limits
		}
	}
	tokens, estimated := tr.OutputTokens()
	e2e, ttft := tr.E2E(), tr.TTFT()
	g := s.live.at(t1)
	g.reqs++
	g.tokens += int64(tokens)
	g.ttft.record(ttft)
	for _, d := range tr.gaps {
		g.itl.record(d)
	}
	if attempt == 0 {
		g.latency.record(e2e)
	}
	if !in {
		return
	}
	seg.succeeded++
	seg.outTokens += int64(tokens)
	seg.inTokens += int64(tr.usageIn)
	seg.estimated = seg.estimated || estimated
	seg.ttft.record(ttft)
	for _, d := range tr.gaps {
		seg.itl.record(d)
	}
	if tpot, ok := tr.TPOT(); ok && tr.chunks > 1 {
		seg.tpot.record(tpot)
	}
	if attempt == 0 {
		seg.latency.record(e2e)
	} else {
		seg.retried.record(tr.last.Sub(first))
	}
	if r.hasSLO && r.cfg.slo.good(tr) {
		seg.goodReqs++
		seg.goodTokens += int64(tokens)
	}
	r.checkCount(seg, t1)
}

// checkCount closes a request-count window once enough requests completed.
// Caller holds statsMu.
func (r *Run) checkCount(seg *segment, now time.Time) {
	if seg.wantReqs > 0 && seg.completed() >= int64(seg.wantReqs) && seg.winEnd.IsZero() {
		s := &r.st
		seg.winEnd = now
		seg.areaEnd = s.area
		close(seg.countDone)
	}
}
