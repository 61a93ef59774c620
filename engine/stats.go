package engine

import "time"

// stats is everything the per-request path updates, guarded by Run.statsMu.
// One lock keeps the in-flight integral, the live window and the segment
// consistent with each other; it is held for a few hundred nanoseconds per
// request.
type stats struct {
	seg *segment // current segment, nil between segments

	// Time-weighted in-flight: area is the integral of in-flight over time
	// (request-seconds) up to areaAt.
	inflight   int
	area       float64
	areaAt     time.Time
	backingOff int

	// Whole-run counters.
	sent, succeeded, failed, rateLimited, retries int64
	errors                                        map[ErrorClass]int64
	lastError                                     string
	lastRetryAfter                                time.Duration
	lastHeaders                                   map[string]string
	// stopping is set once the sweep is over: requests cancelled after
	// that were cut off by us, not failed by the server.
	stopping       bool
	canceledAtStop int64

	live live
}

func newStats(start time.Time, window time.Duration) stats {
	return stats{areaAt: start, errors: map[ErrorClass]int64{}, live: newLive(start, window)}
}

// advance moves the in-flight integral to now.
func (s *stats) advance(now time.Time) {
	if now.After(s.areaAt) {
		s.area += float64(s.inflight) * now.Sub(s.areaAt).Seconds()
		s.areaAt = now
	}
}

// live keeps the last few seconds of successful requests for the charts, as
// two generations of histograms: the current one and the one before it.
// Together they always cover between half and all of the window.
type live struct {
	half                         time.Duration
	cur, prev                    *liveGen
	scratchL, scratchT, scratchI *hist
}

type liveGen struct {
	from                time.Time
	latency, ttft, itl  *hist
	tokens, reqs, fails int64
	lag                 *hist
}

func newLiveGen(from time.Time) *liveGen {
	return &liveGen{from: from, latency: newLiveHist(), ttft: newLiveHist(), itl: newLiveHist(), lag: newLiveHist()}
}

func newLive(start time.Time, window time.Duration) live {
	return live{
		half: window / 2, cur: newLiveGen(start), prev: newLiveGen(start),
		scratchL: newLiveHist(), scratchT: newLiveHist(), scratchI: newLiveHist(),
	}
}

// at returns the generation for time now, rotating when the current one is
// older than half the window.
func (l *live) at(now time.Time) *liveGen {
	if now.Sub(l.cur.from) >= l.half {
		old := l.prev
		l.prev = l.cur
		old.from = now
		old.latency.reset()
		old.ttft.reset()
		old.itl.reset()
		old.lag.reset()
		old.tokens, old.reqs, old.fails = 0, 0, 0
		l.cur = old
	}
	return l.cur
}

// summary merges both generations into distributions and rates.
func (l *live) summary(now time.Time) (lat, ttft, itl Dist, tokPerS, reqPerS, errShare float64, lagP99 time.Duration, span time.Duration) {
	g := l.at(now)
	span = now.Sub(l.prev.from)
	for _, h := range []*hist{l.scratchL, l.scratchT, l.scratchI} {
		h.reset()
	}
	l.scratchL.merge(l.prev.latency)
	l.scratchL.merge(g.latency)
	l.scratchT.merge(l.prev.ttft)
	l.scratchT.merge(g.ttft)
	l.scratchI.merge(l.prev.itl)
	l.scratchI.merge(g.itl)
	lat, ttft, itl = l.scratchL.dist(), l.scratchT.dist(), l.scratchI.dist()
	if span > 0 {
		tokPerS = float64(l.prev.tokens+g.tokens) / span.Seconds()
		reqPerS = float64(l.prev.reqs+g.reqs) / span.Seconds()
	}
	if n := l.prev.reqs + g.reqs + l.prev.fails + g.fails; n > 0 {
		errShare = float64(l.prev.fails+g.fails) / float64(n)
	}
	lagP99 = time.Duration(max(l.prev.lag.dist().P99, g.lag.dist().P99) * float64(time.Millisecond))
	return
}
