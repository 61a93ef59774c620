package engine

import (
	"fmt"
	"time"
)

// Plan is the sweep: the concurrency levels to hold in turn and how long to
// hold each. Warmup is run but not counted; then the measurement window lasts
// Duration, or until RequestsPerLevel requests have completed when that is set.
type Plan struct {
	Levels           []int
	Warmup           time.Duration
	Duration         time.Duration
	RequestsPerLevel int
	// StopAfterKnee ends the sweep this many levels after the knee is
	// confirmed (0 runs the whole plan).
	StopAfterKnee int
	// MaxErrorShare stops the sweep when a level's error share exceeds it
	// (0 disables the rule).
	MaxErrorShare float64
	// ThinkTime is a pause between a worker's requests (closed loop: 0).
	ThinkTime time.Duration
	// Grace is how long in-flight requests may run after Stop before they
	// are cancelled.
	Grace time.Duration
	// MaxRetries retries a failed request this many times (opt-in), with
	// jittered exponential backoff from RetryBase. RetryAfterCap bounds any
	// wait asked for by Retry-After.
	MaxRetries    int
	RetryBase     time.Duration
	RetryAfterCap time.Duration
	// ManualDuration is the measurement window of a manual hold segment
	// before it rolls into a fresh segment; 0 means hold until told.
	ManualDuration time.Duration
}

// DefaultPlan is the sweep `go run .` performs against the default
// simulator profile: geometric levels up past its saturation (the default
// profile bends near 256 and the knee is confirmed at 1024, where the run
// stops), each warmed up for at least a request latency (see warmupFor) and
// measured for 5 s, so the whole sweep stays near 90 s.
func DefaultPlan() Plan {
	return Plan{
		Levels:        []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048},
		Warmup:        time.Second,
		Duration:      5 * time.Second,
		StopAfterKnee: 1,
		MaxErrorShare: 0.5,
		Grace:         3 * time.Second,
		RetryBase:     500 * time.Millisecond,
		RetryAfterCap: 60 * time.Second,
	}
}

// Validate reports the first impossible setting, naming it.
func (p Plan) Validate() error {
	if len(p.Levels) == 0 {
		return fmt.Errorf("sweep.levels: need at least one level")
	}
	for _, c := range p.Levels {
		if c < 1 {
			return fmt.Errorf("sweep.levels: %d is not a positive concurrency", c)
		}
	}
	if p.Duration <= 0 && p.RequestsPerLevel <= 0 {
		return fmt.Errorf("sweep.duration: set a positive duration or requests_per_level")
	}
	if p.Warmup < 0 {
		return fmt.Errorf("sweep.warmup: must not be negative")
	}
	if p.Duration > 0 && p.Warmup > p.Duration {
		return fmt.Errorf("sweep.warmup: %s is longer than the measurement window %s", p.Warmup, p.Duration)
	}
	if p.MaxErrorShare < 0 || p.MaxErrorShare > 1 {
		return fmt.Errorf("sweep.max_error_share: %g is not between 0 and 1", p.MaxErrorShare)
	}
	if p.MaxRetries < 0 {
		return fmt.Errorf("sweep.max_retries: must not be negative")
	}
	return nil
}
