package engine

import "time"

// SchemaV1 names the results file format. Bump it on any incompatible change.
const SchemaV1 = "kneepoint.results/v1"

// Dist summarises one latency distribution in milliseconds. Percentiles come
// from an HDR histogram (<=1% relative error), never from sorted samples.
type Dist struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// Source says who chose a segment's concurrency.
const (
	SourcePlan   = "plan"   // the sweep plan
	SourceManual = "manual" // a key press or API call mid-run
)

// LevelResult is everything measured in one segment of the run: a planned
// level or a manual hold. All figures come from requests that completed
// inside the measurement window; warmup is run but not counted.
type LevelResult struct {
	Index       int    `json:"index"`
	Concurrency int    `json:"concurrency"`
	Source      string `json:"source"`
	// StartS is when the segment began, in seconds since the run started;
	// WarmupS and DurationS are the warmup actually run and the length of
	// the measurement window.
	StartS    float64 `json:"start_s"`
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	// Complete is false when the window was cut short (key press, stop).
	Complete bool `json:"complete"`

	Sent        int64            `json:"sent"`     // requests started in the window
	Requests    int64            `json:"requests"` // requests completed in the window
	Succeeded   int64            `json:"succeeded"`
	Failed      int64            `json:"failed"`
	RateLimited int64            `json:"rate_limited"`
	Errors      map[string]int64 `json:"errors"` // failed requests by class
	Retries     int64            `json:"retries"`
	LastError   string           `json:"last_error,omitempty"`

	Latency Dist `json:"latency_ms"` // end-to-end, to the last token-bearing chunk
	TTFT    Dist `json:"ttft_ms"`
	ITL     Dist `json:"itl_ms"`  // every gap between token-bearing chunks, pooled
	TPOT    Dist `json:"tpot_ms"` // per request (E2E-TTFT)/(tokens-1)
	// RetriedLatency is end-to-end latency, including backoff waits, of
	// requests that needed more than one attempt; they are not in Latency.
	RetriedLatency Dist `json:"retried_latency_ms"`

	OutputTokens    int64   `json:"output_tokens"`
	InputTokens     int64   `json:"input_tokens"`
	TokensEstimated bool    `json:"tokens_estimated"` // some counts were not from server usage
	OutputTokPerS   float64 `json:"output_tokens_per_s"`
	RequestsPerS    float64 `json:"requests_per_s"`

	// MeanInFlight is the time-weighted mean of requests in flight over the
	// window; LittleInFlight is throughput x mean latency, which Little's law
	// says should match it. A large gap means the harness or the window is
	// distorting the figures.
	MeanInFlight   float64 `json:"mean_in_flight"`
	LittleInFlight float64 `json:"littles_law_in_flight"`
	// Goodput: requests (and their output tokens) that met every SLO, per
	// second; set when SLOs are configured.
	GoodRequests   int64    `json:"good_requests,omitempty"`
	GoodputRPS     float64  `json:"goodput_requests_per_s,omitempty"`
	GoodputTokPerS float64  `json:"goodput_output_tokens_per_s,omitempty"`
	SLOMet         *bool    `json:"slo_met,omitempty"`
	SLOMisses      []string `json:"slo_misses,omitempty"`

	// Cost, when prices are configured.
	CostPerRequest float64 `json:"cost_per_request,omitempty"`
	CostPerMOutput float64 `json:"cost_per_million_output_tokens,omitempty"`

	// DispatchLagMs is how late workers sent requests relative to when they
	// were free to (coordinated-omission guard); p99 in ms.
	DispatchLagMs float64 `json:"dispatch_lag_p99_ms"`
}

// ErrorShare is failed / completed in the window.
func (l *LevelResult) ErrorShare() float64 {
	if l.Requests == 0 {
		return 0
	}
	return float64(l.Failed) / float64(l.Requests)
}

// Knee is the detected saturation point of a sweep.
type Knee struct {
	Concurrency int    `json:"concurrency"`
	Level       int    `json:"level"` // index into Results.Levels
	Cause       string `json:"cause"` // "capacity", "rate_limit" or "errors"
	Trigger     string `json:"trigger"`
	Reason      string `json:"reason"`
	// BestX2C is the concurrency that maximises throughput^2/concurrency,
	// the power-style operating point (throughput per unit of latency).
	BestX2C int `json:"best_x2c_concurrency"`
}

// Change is one concurrency change during the run.
type Change struct {
	AtS    float64 `json:"at_s"`
	From   int     `json:"from"`
	To     int     `json:"to"`
	Source string  `json:"source"`
	Note   string  `json:"note,omitempty"`
}

// Workload is the request shape, reported with every result: a figure
// without its prompt shape is an anecdote.
type Workload struct {
	PromptTokens int    `json:"prompt_tokens"`
	MaxTokens    int    `json:"max_tokens"`
	Stream       bool   `json:"stream"`
	ThinkTimeMs  int64  `json:"think_time_ms"`
	Description  string `json:"description,omitempty"`
}

// PlanJSON is the plan as recorded in results.
type PlanJSON struct {
	Levels           []int   `json:"levels"`
	WarmupS          float64 `json:"warmup_s"`
	DurationS        float64 `json:"duration_s,omitempty"`
	RequestsPerLevel int     `json:"requests_per_level,omitempty"`
	StopAfterKnee    int     `json:"stop_after_knee"`
	MaxErrorShare    float64 `json:"max_error_share"`
}

// Results is the whole run: what --out writes and what reports read.
type Results struct {
	Schema        string        `json:"schema"`
	Version       string        `json:"kneepoint_version"`
	StartedAt     time.Time     `json:"started_at"`
	DurationS     float64       `json:"duration_s"`
	Partial       bool          `json:"partial"`
	PartialReason string        `json:"partial_reason,omitempty"`
	Seed          int64         `json:"seed"`
	Target        Target        `json:"target"`
	Workload      Workload      `json:"workload"`
	Plan          PlanJSON      `json:"plan"`
	Levels        []LevelResult `json:"levels"`
	Knee          *Knee         `json:"knee"`
	KneeNote      string        `json:"knee_note"` // why there is no knee, or how it was confirmed
	Events        []Change      `json:"events"`
	// SLO figures, when objectives are configured: the highest planned
	// concurrency meeting every objective and the verdict at
	// slo.at_concurrency.
	SLO               *SLO        `json:"slo,omitempty"`
	SLOMaxConcurrency int         `json:"slo_max_concurrency,omitempty"`
	SLOVerdict        *SLOVerdict `json:"slo_verdict,omitempty"`
	Cost              *Cost       `json:"cost,omitempty"`
	Warnings          []string    `json:"warnings"`
}
