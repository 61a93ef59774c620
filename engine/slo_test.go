package engine

import (
	"context"
	"testing"
	"time"
)

// TestGoodput: with a TTFT bound between the two TTFTs the provider
// produces, exactly the fast requests are good.
func TestGoodput(t *testing.T) {
	p := &alternating{fast: 5 * time.Millisecond, slow: 30 * time.Millisecond}
	plan := Plan{Levels: []int{2}, Warmup: 50 * time.Millisecond, Duration: 600 * time.Millisecond}
	slo := SLO{TTFTP95Ms: 15, AtConcurrency: 2}
	_, res := drain(New(p, plan, WithSLO(slo)).Start(context.Background()))
	l := res.Levels[0]
	share := float64(l.GoodRequests) / float64(l.Succeeded)
	if share < 0.35 || share > 0.65 {
		t.Errorf("good share %.2f, want about half (%d of %d)", share, l.GoodRequests, l.Succeeded)
	}
	if l.SLOMet == nil || *l.SLOMet {
		t.Errorf("p95 TTFT %.1f ms must miss a 15 ms objective", l.TTFT.P95)
	}
	if res.SLOVerdict == nil || res.SLOVerdict.Met || len(res.SLOVerdict.Misses) == 0 {
		t.Errorf("verdict %+v", res.SLOVerdict)
	}
}

func TestCostPerToken(t *testing.T) {
	l := LevelResult{Succeeded: 10, InputTokens: 1_000_000, OutputTokens: 2_000_000, DurationS: 3600}
	Cost{InputPerMillion: 1, OutputPerMillion: 2, PerHour: 5}.apply(&l)
	// 1 + 4 + 5 = 10 for 2 M output tokens and 10 requests
	if l.CostPerRequest != 1 || l.CostPerMOutput != 5 {
		t.Errorf("per request %v, per M output %v", l.CostPerRequest, l.CostPerMOutput)
	}
}

// alternating gives every other request a slow first token.
type alternating struct {
	fast, slow time.Duration
}

func (a *alternating) Do(ctx context.Context, req Request, tr *Trace) error {
	d := a.fast
	if req.ID%2 == 0 {
		d = a.slow
	}
	tr.Start(time.Now())
	if !sleepCtx(ctx, d) {
		return ctx.Err()
	}
	tr.Token(time.Now(), 1)
	tr.Token(time.Now(), 1)
	tr.Usage(req.PromptTokens, 2)
	return nil
}
