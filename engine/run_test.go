package engine

import (
	"context"
	"math"
	"testing"
	"time"
)

func within(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.3f, want %.3f ± %.3f", name, got, want, tol)
	}
}

// TestFiguresAreTrue runs the engine against a provider whose timing is
// known exactly and checks every reported figure. Tolerances cover timer
// slack on a loaded 2-core CI machine: a few ms per latency figure, 10% on
// rates.
func TestFiguresAreTrue(t *testing.T) {
	p := &scripted{ttft: 40 * time.Millisecond, gap: 5 * time.Millisecond, tokens: 11}
	plan := Plan{Levels: []int{1, 4}, Warmup: 200 * time.Millisecond, Duration: 1500 * time.Millisecond}
	run := New(p, plan, WithSnapshotEvery(50*time.Millisecond))
	_, res := drain(run.Start(context.Background()))
	if len(res.Levels) != 2 {
		t.Fatalf("levels = %d, want 2", len(res.Levels))
	}
	e2e := 40.0 + 10*5.0 // ms
	for _, l := range res.Levels {
		c := float64(l.Concurrency)
		within(t, "ttft p50", l.TTFT.P50, 40, 4)
		within(t, "itl p50", l.ITL.P50, 5, 1.5)
		within(t, "latency p50", l.Latency.P50, e2e, 8)
		within(t, "tpot p50", l.TPOT.P50, 5, 1)
		// closed loop: each slot completes one request per E2E
		wantRPS := c / (e2e / 1000)
		within(t, "requests/s", l.RequestsPerS, wantRPS, 0.12*wantRPS)
		within(t, "tokens/s", l.OutputTokPerS, 11*wantRPS, 0.12*11*wantRPS)
		within(t, "mean in-flight", l.MeanInFlight, c, 0.03*c)
		within(t, "little", l.LittleInFlight, l.MeanInFlight, 0.1*c)
		if l.ITL.Count != 10*l.Succeeded {
			t.Errorf("ITL samples = %d, want 10 per request (%d)", l.ITL.Count, 10*l.Succeeded)
		}
		if l.TokensEstimated {
			t.Errorf("tokens marked estimated although usage was given")
		}
	}
	if got := p.maxInFlt.Load(); got != 4 {
		t.Errorf("max in flight = %d, want exactly 4", got)
	}
	if res.Partial {
		t.Errorf("complete run marked partial")
	}
}
