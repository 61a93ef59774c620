package engine

import (
	"context"
	"fmt"
	"math"
	"time"
)

// holdEnd says why a segment ended.
type holdEnd int

const (
	endDone   holdEnd = iota // the window ran its course
	endNext                  // 'n': skip to the next planned level
	endManual                // concurrency changed: manual hold at n
	endResume                // 'a': leave the manual hold
	endPause                 // sending paused
	endStop                  // Stop, or the run's context ended
	endRedo                  // unpaused: run the interrupted segment again
)

type holdResult struct {
	end    holdEnd
	n      int
	reason string
}

// loop is the sweep: it walks the plan level by level, switches to manual
// holds when told, applies the stop rules and finally shuts down.
func (r *Run) loop(ctx context.Context) {
	wctx, cancelWorkers := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWorkers()

	planIdx, manualN := 0, 0
	source := SourcePlan
	stopReason := ""
sweep:
	for {
		var res holdResult
		if source == SourcePlan {
			if planIdx >= len(r.plan.Levels) {
				break
			}
			res = r.hold(ctx, wctx, r.plan.Levels[planIdx], SourcePlan, planIdx)
		} else {
			res = r.hold(ctx, wctx, manualN, SourceManual, planIdx)
		}
		for res.end == endPause {
			res = r.whilePaused(ctx, planIdx)
		}
		switch res.end {
		case endDone:
			if source == SourcePlan {
				planIdx++
				if r.stopRules() {
					break sweep
				}
			}
		case endNext, endResume:
			if source == SourcePlan {
				planIdx++
			}
			source = SourcePlan
		case endManual:
			if source == SourcePlan {
				planIdx++ // 'a' resumes from the level after the one interrupted
			}
			source, manualN = SourceManual, res.n
		case endStop:
			stopReason = res.reason
			break sweep
		case endRedo: // the same level or hold again, from warmup
		}
	}
	r.shutdown(cancelWorkers, stopReason)
}

// hold runs one segment at concurrency c: warmup, then the measurement
// window, publishing snapshots and obeying controls until it ends.
func (r *Run) hold(ctx, wctx context.Context, c int, source string, planIdx int) holdResult {
	prev := int(r.target.Load())
	now := time.Now()
	seg := newSegment(-1, c, source, planIdx, now)
	warm := r.warmupFor(c)
	if source == SourcePlan && r.plan.RequestsPerLevel > 0 {
		seg.wantReqs = r.plan.RequestsPerLevel
	}
	r.statsMu.Lock()
	r.st.seg = seg
	r.statsMu.Unlock()
	if c != prev {
		r.change(prev, c, source, "")
	}
	r.setTarget(wctx, c, warm/2)
	r.pub.send(LevelStarted{Index: len(r.levels), Concurrency: c, Source: source, PlanIndex: planIdx, At: now.Sub(r.start)})

	ph := phaseClock{phase: PhaseWarmup, began: now, length: warm}
	if source == SourceManual {
		ph.phase = PhaseManual
	}
	warmT := time.NewTimer(warm)
	defer warmT.Stop()
	var window <-chan time.Time
	tick := time.NewTicker(r.cfg.snapEvery)
	defer tick.Stop()
	r.publishSnapshot(ph, seg, planIdx)

	for {
		select {
		case <-warmT.C:
			now := time.Now()
			r.statsMu.Lock()
			r.st.advance(now)
			seg.winStart, seg.areaStart = now, r.st.area
			r.statsMu.Unlock()
			length := r.plan.Duration
			if source == SourceManual {
				length = r.plan.ManualDuration
			} else {
				ph.phase = PhaseMeasuring
			}
			if seg.wantReqs > 0 {
				length = 0
			}
			ph.began, ph.length = now, length
			if length > 0 {
				t := time.NewTimer(length)
				defer t.Stop()
				window = t.C
			}
		case <-window:
			r.finalize(seg, true)
			return holdResult{end: endDone}
		case <-seg.countDone:
			r.finalize(seg, true)
			return holdResult{end: endDone}
		case <-tick.C:
			r.publishSnapshot(ph, seg, planIdx)
		case <-ctx.Done():
			r.finalize(seg, false)
			return holdResult{end: endStop, reason: "interrupted"}
		case ctl := <-r.ctl:
			switch ctl.kind {
			case ctlSet, ctlAdd, ctlScale:
				n := ctl.apply(c)
				if n == c && source == SourceManual {
					continue
				}
				r.finalize(seg, false)
				return holdResult{end: endManual, n: n}
			case ctlResume:
				if source != SourceManual {
					continue
				}
				r.finalize(seg, false)
				return holdResult{end: endResume}
			case ctlPause:
				r.finalize(seg, false)
				r.setPaused(true)
				return holdResult{end: endPause}
			case ctlNext:
				r.finalize(seg, false)
				return holdResult{end: endNext}
			case ctlStop:
				r.finalize(seg, false)
				return holdResult{end: endStop, reason: orDefault(ctl.reason, "stopped")}
			}
		}
	}
}

// paused waits while sending is paused. In-flight requests finish; no
// segment is open. Unpausing restarts the interrupted level from warmup; a
// concurrency change unpauses into a manual hold.
func (r *Run) whilePaused(ctx context.Context, planIdx int) holdResult {
	tick := time.NewTicker(r.cfg.snapEvery)
	defer tick.Stop()
	ph := phaseClock{phase: PhasePaused, began: time.Now()}
	defer r.setPaused(false)
	for {
		r.publishSnapshot(ph, nil, planIdx)
		select {
		case <-tick.C:
		case <-ctx.Done():
			return holdResult{end: endStop, reason: "interrupted"}
		case ctl := <-r.ctl:
			switch ctl.kind {
			case ctlPause, ctlResume:
				return holdResult{end: endRedo}
			case ctlSet, ctlAdd, ctlScale:
				return holdResult{end: endManual, n: ctl.apply(int(r.target.Load()))}
			case ctlNext:
				return holdResult{end: endNext}
			case ctlStop:
				return holdResult{end: endStop, reason: orDefault(ctl.reason, "stopped")}
			}
		}
	}
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// phaseClock describes the phase in progress for snapshots.
type phaseClock struct {
	phase  Phase
	began  time.Time
	length time.Duration // 0: open-ended
}

// maxWarmup bounds the adaptive warmup.
const maxWarmup = time.Minute

// warmupFor is the warmup before a level at concurrency c: two request
// latencies at the new level. New workers ramp in over the first (see
// setTarget), their first requests spread over one full cycle so that
// completions arrive evenly: in a closed loop of equal-length requests the
// phases set at the ramp persist, and a ramp shorter than the new latency
// leaves completions bunched into waves that a window samples unevenly.
// (Workers already running need no respreading: a request x% done when the
// load rises finishes (1-x) of the new latency later, evenly spread.) The
// second latency lets every request started during the ramp, under a
// lighter load that would flatter the level, finish before the window.
//
// The latency at the new level is predicted from the last level's mean
// latency and the latency elasticity of the last step: R grows as C^e,
// e ≈ 0 before saturation and → 1 past it (Little's law, R = C/X). The
// warmup is at least the plan's and at most maxWarmup.
func (r *Run) warmupFor(c int) time.Duration {
	w := r.plan.Warmup
	if w <= 0 {
		return 0
	}
	var ok []LevelResult
	for _, l := range r.levels {
		if l.Succeeded > 0 && l.Latency.Mean > 0 {
			ok = append(ok, l)
		}
	}
	if len(ok) == 0 {
		return w
	}
	last := ok[len(ok)-1]
	// The elasticity comes from the last level and an earlier one at most
	// two thirds its concurrency: between close levels (a manual +1) it is
	// noise. Without such a level, assume saturation (e = 1).
	e := 1.0
	for i := len(ok) - 2; i >= 0; i-- {
		prev := ok[i]
		if 3*prev.Concurrency > 2*last.Concurrency {
			continue
		}
		if v := elasticity(prev.Latency.Mean, last.Latency.Mean, prev.Concurrency, last.Concurrency); !math.IsNaN(v) {
			e = min(max(v, 0), 1)
		}
		break
	}
	ratio := max(float64(c)/float64(last.Concurrency), 1)
	est := time.Duration(last.Latency.Mean * math.Pow(ratio, e) * float64(time.Millisecond))
	return min(max(w, 2*est), maxWarmup)
}

// change records a change of target concurrency.
func (r *Run) change(from, to int, source, note string) {
	ch := Change{AtS: time.Since(r.start).Seconds(), From: from, To: to, Source: source, Note: note}
	r.changes = append(r.changes, ch)
	r.pub.send(ConcurrencyChanged{Change: ch})
}

// finalize closes a segment's window and publishes its figures. A segment
// cut before its window opened measured nothing and is dropped.
func (r *Run) finalize(seg *segment, complete bool) {
	now := time.Now()
	r.statsMu.Lock()
	if seg.winStart.IsZero() {
		r.statsMu.Unlock()
		return
	}
	r.st.advance(now)
	if seg.winEnd.IsZero() {
		seg.winEnd, seg.areaEnd = now, r.st.area
	}
	seg.index = len(r.levels)
	lr := seg.result(r.start, complete)
	r.statsMu.Unlock()
	r.levels = append(r.levels, lr)
	r.pub.send(LevelDone{Level: lr})
}

// stopRules runs the knee detector after a planned level and says whether
// the sweep should end: the knee confirmed and StopAfterKnee levels measured
// past it, or an error share above the bound.
func (r *Run) stopRules() bool {
	k, note := DetectKnee(r.levels, r.cfg.kneeRule)
	r.note = note
	if k != nil && r.knee == nil {
		r.knee = k
		r.pub.send(KneeFound{Knee: *k})
	}
	last := r.levels[len(r.levels)-1]
	if b := r.plan.MaxErrorShare; b > 0 && last.Requests > 0 && last.ErrorShare() > b {
		stop := fmt.Sprintf("stopped: error share %.0f%% at c=%d exceeds %.0f%%", 100*last.ErrorShare(), last.Concurrency, 100*b)
		if r.note != "" {
			stop = r.note + "; " + stop
		}
		r.note = stop
		return true
	}
	if r.knee != nil && r.plan.StopAfterKnee > 0 {
		past := 0
		for _, l := range r.levels {
			if l.Source == SourcePlan && l.Concurrency > r.knee.Concurrency {
				past++
			}
		}
		if past >= r.plan.StopAfterKnee {
			return true
		}
	}
	return false
}

// shutdown stops sending. After Stop, in-flight requests get the grace
// period to finish before they are cancelled; at the natural end of a sweep
// nothing more is measured, so they are cancelled at once. Then the results
// are published and the channel closed.
func (r *Run) shutdown(cancelWorkers context.CancelFunc, stopReason string) {
	r.target.Store(0)
	r.statsMu.Lock()
	r.st.stopping = true
	r.st.seg = nil
	r.statsMu.Unlock()
	r.setPaused(false)
	if stopReason != "" && r.plan.Grace > 0 {
		deadline := time.Now().Add(r.plan.Grace)
		ph := phaseClock{phase: PhaseStopping, began: time.Now(), length: r.plan.Grace}
		for time.Now().Before(deadline) && r.inFlight() > 0 {
			r.publishSnapshot(ph, nil, len(r.plan.Levels))
			time.Sleep(min(50*time.Millisecond, time.Until(deadline)))
		}
	}
	cancelWorkers()
	r.workers.Wait()
	res := r.results(stopReason)
	r.publishSnapshot(phaseClock{phase: PhaseDone, began: time.Now()}, nil, len(r.plan.Levels))
	r.pub.send(Finished{Results: res})
	r.pub.close()
}

func (r *Run) inFlight() int {
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	return r.st.inflight
}
