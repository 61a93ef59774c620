package engine

import (
	"testing"
	"time"
)

// TestWarmupFor: two predicted latencies at the new level, the prediction
// scaling the last latency by the concurrency step to the power of the
// latency elasticity measured over a real step (not a manual +1).
func TestWarmupFor(t *testing.T) {
	lvl := func(c int, meanMs float64) LevelResult {
		return LevelResult{Concurrency: c, Succeeded: 10, Latency: Dist{Mean: meanMs}}
	}
	tests := []struct {
		name   string
		levels []LevelResult
		c      int
		want   time.Duration
	}{
		{"first level: the plan's", nil, 1, time.Second},
		{"flat latency: 2 x last", []LevelResult{lvl(32, 700), lvl(64, 700)}, 128, 1400 * time.Millisecond},
		{"saturated: latency doubles", []LevelResult{lvl(256, 2000), lvl(512, 4000)}, 1024, 16 * time.Second},
		{"one level: assume saturation", []LevelResult{lvl(64, 900)}, 128, 3600 * time.Millisecond},
		{"manual +1 ignored (e from 32->65 = 0.02)", []LevelResult{lvl(32, 700), lvl(64, 700), lvl(65, 710)}, 128, 1439 * time.Millisecond},
		{"capped", []LevelResult{lvl(1024, 50000)}, 2048, maxWarmup},
		{"never below the plan", []LevelResult{lvl(1, 100), lvl(2, 100)}, 4, time.Second},
	}
	for _, tt := range tests {
		r := &Run{plan: Plan{Warmup: time.Second}, levels: tt.levels}
		got := r.warmupFor(tt.c)
		if d := got - tt.want; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("%s: warmup %s, want %s", tt.name, got, tt.want)
		}
	}
}
