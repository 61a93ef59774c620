package engine

import (
	"fmt"
	"runtime"
	"time"
)

// Thresholds past which the harness, not the server, is the likely limit.
const (
	clientBoundLag = 10 * time.Millisecond // p99 dispatch lag
	clientBoundCPU = 0.90                  // share of all cores
)

// healthProbe measures the process's CPU share between snapshots.
type healthProbe struct {
	lastWall time.Time
	lastCPU  time.Duration
	share    float64
}

func newHealthProbe(now time.Time) healthProbe {
	return healthProbe{lastWall: now, lastCPU: cpuTime()}
}

// sample updates the CPU share over the interval since the last sample.
func (h *healthProbe) sample(now time.Time) float64 {
	wall := now.Sub(h.lastWall)
	if wall < 100*time.Millisecond {
		return h.share
	}
	cpu := cpuTime()
	h.share = float64(cpu-h.lastCPU) / float64(wall) / float64(runtime.NumCPU())
	h.lastWall, h.lastCPU = now, cpu
	return h.share
}

// clientBound says whether the harness looks like the bottleneck, and why.
func clientBound(lagP99 time.Duration, cpu float64) (bool, string) {
	switch {
	case lagP99 > clientBoundLag:
		return true, fmt.Sprintf("client-bound: workers dispatch %s late (p99)", lagP99.Round(time.Millisecond))
	case cpu > clientBoundCPU:
		return true, fmt.Sprintf("client-bound: kneepoint uses %.0f%% of the CPU", 100*cpu)
	}
	return false, ""
}
