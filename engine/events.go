package engine

import "time"

// Event is what a run publishes. Snapshots may be dropped for a slow reader
// (the latest wins); every other event is delivered, in order.
type Event interface{ isEvent() }

// Phase is what the run is doing right now.
type Phase string

const (
	PhaseWarmup    Phase = "warming up"
	PhaseMeasuring Phase = "measuring"
	PhaseManual    Phase = "manual hold"
	PhasePaused    Phase = "paused"
	PhaseStopping  Phase = "stopping"
	PhaseDone      Phase = "done"
)

// Snapshot is the aggregate state of the run, published at most every
// 250 ms. It holds no per-request data.
type Snapshot struct {
	At      time.Duration // since the run started
	Phase   Phase
	Paused  bool
	Source  string // of the current segment
	Segment int    // index of the current segment (== len of finished levels)
	// PlanIndex is the current planned level (0-based) and PlanLen the
	// number planned; during a manual hold PlanIndex is the level the
	// sweep resumes from.
	PlanIndex  int
	PlanLen    int
	Target     int // target concurrency
	InFlight   int // requests in flight now
	BackingOff int // workers waiting out a Retry-After
	// PhaseElapsed/PhaseLeft describe the warmup or window in progress;
	// Remaining estimates the rest of the planned sweep.
	PhaseElapsed time.Duration
	PhaseLeft    time.Duration
	Remaining    time.Duration

	// Live figures over the last few seconds (Window), for the charts.
	Window        time.Duration
	Latency       Dist
	TTFT          Dist
	ITL           Dist
	OutputTokPerS float64
	RequestsPerS  float64
	ErrorShare    float64 // failed / completed over the live window

	// Current segment so far (measurement window only).
	SegMeanInFlight float64
	SegSucceeded    int64

	// Whole-run counters.
	Sent        int64
	Succeeded   int64
	Failed      int64
	RateLimited int64
	Errors      map[string]int64
	Retries     int64
	LastError   string
	// Last rate-limit hints seen (Retry-After and x-ratelimit-* headers).
	LastRetryAfter  time.Duration
	LastRateHeaders map[string]string

	// Harness health: p99 dispatch lag over the window, the process's CPU
	// share (0..1 of one core times cores) and whether the harness looks
	// like the bottleneck.
	DispatchLagP99 time.Duration
	CPUShare       float64 // process CPU time / wall time / cores, over the last interval
	OpenConns      int64   // connections the provider holds open, -1 when unknown
	ClientBound    bool
	HarnessNote    string // why ClientBound is set
}

// LevelStarted announces a new segment.
type LevelStarted struct {
	Index       int
	Concurrency int
	Source      string
	PlanIndex   int
	At          time.Duration
}

// LevelDone carries the final figures of a segment.
type LevelDone struct{ Level LevelResult }

// KneeFound is published when a knee is confirmed (or revised).
type KneeFound struct{ Knee Knee }

// ConcurrencyChanged records a change of target concurrency.
type ConcurrencyChanged struct{ Change Change }

// Finished is the last event: the whole results. The channel closes after it.
type Finished struct{ Results Results }

func (Snapshot) isEvent()           {}
func (LevelStarted) isEvent()       {}
func (LevelDone) isEvent()          {}
func (KneeFound) isEvent()          {}
func (ConcurrencyChanged) isEvent() {}
func (Finished) isEvent()           {}
