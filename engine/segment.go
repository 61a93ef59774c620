package engine

import (
	"time"
)

// segment accumulates one level's (or manual hold's) statistics. Requests are
// counted only when they complete inside the measurement window [winStart,
// winEnd); warmup completions are run but not counted. All fields are
// guarded by Run.statsMu.
type segment struct {
	index       int
	concurrency int
	source      string
	planIndex   int // planned level this segment belongs to (-1 for manual)

	began     time.Time // segment start (warmup start)
	winStart  time.Time // zero until the window opens
	winEnd    time.Time // zero while open
	areaStart float64   // in-flight integral (request-seconds) at winStart
	areaEnd   float64
	wantReqs  int // end the window after this many completions (0: by time)
	countDone chan struct{}

	sent, succeeded, failed, rateLimited, retries int64
	errors                                        map[ErrorClass]int64
	lastError                                     string
	outTokens, inTokens                           int64
	estimated                                     bool
	occupancy                                     time.Duration // sum of slot time of completed requests
	goodReqs, goodTokens                          int64

	latency, ttft, itl, tpot, retried, lag *hist
}

func newSegment(index, concurrency int, source string, planIndex int, now time.Time) *segment {
	return &segment{
		index: index, concurrency: concurrency, source: source, planIndex: planIndex, began: now,
		errors:    map[ErrorClass]int64{},
		countDone: make(chan struct{}),
		latency:   newHist(), ttft: newHist(), itl: newHist(), tpot: newHist(), retried: newHist(), lag: newHist(),
	}
}

// measuring reports whether an event at t falls inside the open window.
func (s *segment) measuring(t time.Time) bool {
	return !s.winStart.IsZero() && !t.Before(s.winStart) && (s.winEnd.IsZero() || t.Before(s.winEnd))
}

func (s *segment) completed() int64 { return s.succeeded + s.failed }

// result turns the segment into its reported figures. start is the run's start.
func (s *segment) result(start time.Time, complete bool) LevelResult {
	lr := LevelResult{
		Index: s.index, Concurrency: s.concurrency, Source: s.source,
		StartS:   s.began.Sub(start).Seconds(),
		Complete: complete,
		Sent:     s.sent, Requests: s.completed(), Succeeded: s.succeeded, Failed: s.failed,
		RateLimited: s.rateLimited, Retries: s.retries, LastError: s.lastError,
		Errors:         map[string]int64{},
		Latency:        s.latency.dist(),
		TTFT:           s.ttft.dist(),
		ITL:            s.itl.dist(),
		TPOT:           s.tpot.dist(),
		RetriedLatency: s.retried.dist(),
		OutputTokens:   s.outTokens, InputTokens: s.inTokens, TokensEstimated: s.estimated,
		DispatchLagMs: s.lag.dist().P99,
	}
	for c, n := range s.errors {
		lr.Errors[string(c)] = n
	}
	if s.winStart.IsZero() {
		lr.WarmupS = time.Since(s.began).Seconds()
		return lr
	}
	lr.WarmupS = s.winStart.Sub(s.began).Seconds()
	dur := s.winEnd.Sub(s.winStart).Seconds()
	lr.DurationS = dur
	if dur > 0 {
		lr.OutputTokPerS = float64(s.outTokens) / dur
		lr.RequestsPerS = float64(s.succeeded) / dur
		lr.MeanInFlight = (s.areaEnd - s.areaStart) / dur
		lr.GoodRequests = s.goodReqs
		lr.GoodputRPS = float64(s.goodReqs) / dur
		lr.GoodputTokPerS = float64(s.goodTokens) / dur
	}
	// Little's law over all completions (failed ones occupied a slot too).
	if n := s.completed(); n > 0 && dur > 0 {
		lr.LittleInFlight = float64(n) / dur * s.allLatency()
	}
	return lr
}

// allLatency is the mean occupancy time per completed request in seconds,
// successes and failures alike, for the Little's-law check.
func (s *segment) allLatency() float64 {
	n := s.completed()
	if n == 0 {
		return 0
	}
	return s.occupancy.Seconds() / float64(n)
}
