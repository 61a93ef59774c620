package sim

import (
	"math"
	"testing"
	"time"
)

// TestDefaultKnee prints the default profile's predicted sweep for the
// default workload (150 prompt / 128 output tokens) and checks where the
// throughput elasticity first drops below 0.2: the figure doc.go quotes and
// the lead cross-checks a real sweep against.
func TestDefaultKnee(t *testing.T) {
	p, _ := LookupProfile(DefaultProfile)
	levels := []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048}
	var prev LoadResult
	knee := 0
	for i, n := range levels {
		r := VirtualLoad(p, n, 150, 128, 20*time.Second, 30*time.Second, 1)
		el := math.NaN()
		if i > 0 {
			el = math.Log(r.OutputTokPerS/prev.OutputTokPerS) / math.Log(float64(n)/float64(prev.Concurrency))
			if knee == 0 && el < 0.2 {
				knee = n
			}
		}
		t.Logf("C=%5d  %8.0f tok/s  %6.1f req/s  elasticity %5.2f  TTFT p50 %7.1fms p99 %7.1fms  ITL %5.1fms  E2E %7.0fms  running %6.1f waiting %6.1f",
			n, r.OutputTokPerS, r.RequestsPerS, el, ms(r.TTFTP50), ms(r.TTFTP99), ms(r.ITLMean), ms(r.E2EMean), r.MeanRunning, r.MeanWaiting)
		prev = r
	}
	t.Logf("first level with elasticity < 0.2: %d", knee)
	if knee != 512 {
		t.Errorf("knee (elasticity < 0.2) at %d, doc.go says 512", knee)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
