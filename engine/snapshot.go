package engine

import (
	"maps"
	"time"
)

// publishSnapshot builds the aggregate view and hands it to the publisher,
// which keeps only the latest if the reader is slow.
func (r *Run) publishSnapshot(ph phaseClock, seg *segment, planIdx int) {
	now := time.Now()
	sn := Snapshot{
		At:        now.Sub(r.start),
		Phase:     ph.phase,
		Paused:    r.paused.Load(),
		Segment:   len(r.levels),
		PlanIndex: planIdx,
		PlanLen:   len(r.plan.Levels),
		Target:    int(r.target.Load()),
		Window:    r.cfg.liveWindow,
		OpenConns: -1,
	}
	sn.PhaseElapsed = now.Sub(ph.began)
	if ph.length > 0 {
		sn.PhaseLeft = max(ph.length-sn.PhaseElapsed, 0)
	}
	sn.Remaining = sn.PhaseLeft + r.remainingAfter(ph, planIdx)

	r.statsMu.Lock()
	s := &r.st
	s.advance(now)
	sn.InFlight = s.inflight
	sn.BackingOff = s.backingOff
	var lag time.Duration
	sn.Latency, sn.TTFT, sn.ITL, sn.OutputTokPerS, sn.RequestsPerS, sn.ErrorShare, lag, _ = s.live.summary(now)
	if seg != nil {
		sn.Source = seg.source
		sn.SegSucceeded = seg.succeeded
		if !seg.winStart.IsZero() {
			if d := now.Sub(seg.winStart).Seconds(); d > 0 {
				sn.SegMeanInFlight = (s.area - seg.areaStart) / d
			}
		}
	}
	sn.Sent, sn.Succeeded, sn.Failed = s.sent, s.succeeded, s.failed
	sn.RateLimited, sn.Retries = s.rateLimited, s.retries
	sn.Errors = make(map[string]int64, len(s.errors))
	for c, n := range s.errors {
		sn.Errors[string(c)] = n
	}
	sn.LastError = s.lastError
	sn.LastRetryAfter = s.lastRetryAfter
	sn.LastRateHeaders = maps.Clone(s.lastHeaders)
	r.statsMu.Unlock()

	sn.DispatchLagP99 = lag
	sn.CPUShare = r.health.sample(now)
	if cc, ok := r.p.(ConnCounter); ok {
		sn.OpenConns = cc.OpenConns()
	}
	sn.ClientBound, sn.HarnessNote = clientBound(lag, sn.CPUShare)
	r.pub.snapshot(sn)
}

// remainingAfter estimates the time the planned levels after the current
// one will take (time-based windows only).
func (r *Run) remainingAfter(ph phaseClock, planIdx int) time.Duration {
	if r.plan.Duration <= 0 {
		return 0
	}
	next := planIdx + 1
	if ph.phase == PhaseWarmup {
		// the window of this level is still to come
		return r.plan.Duration + time.Duration(len(r.plan.Levels)-next)*(r.plan.Warmup+r.plan.Duration)
	}
	if ph.phase != PhaseMeasuring {
		next = planIdx
	}
	if next >= len(r.plan.Levels) {
		return 0
	}
	return time.Duration(len(r.plan.Levels)-next) * (r.plan.Warmup + r.plan.Duration)
}
