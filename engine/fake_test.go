package engine

import (
	"context"
	"sync/atomic"
	"time"
)

// scripted is a fake provider with exactly known timing: the first token
// arrives ttft after the request is written, then one token every gap.
// failEvery > 0 makes every failEvery-th request fail with class fail.
type scripted struct {
	ttft, gap time.Duration
	tokens    int
	noUsage   bool
	failEvery int64
	fail      *Failure
	n         atomic.Int64
	maxInFlt  atomic.Int64
	inflight  atomic.Int64
}

func (s *scripted) Do(ctx context.Context, req Request, tr *Trace) error {
	cur := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for {
		m := s.maxInFlt.Load()
		if cur <= m || s.maxInFlt.CompareAndSwap(m, cur) {
			break
		}
	}
	start := time.Now()
	tr.Start(start)
	if s.failEvery > 0 && s.n.Add(1)%s.failEvery == 0 {
		if !sleepCtx(ctx, s.ttft) {
			return ctx.Err()
		}
		f := *s.fail
		return &f
	}
	// Sleep to absolute deadlines, so timer slack does not accumulate over
	// the chunks: each token is late by at most one wake-up.
	for i := 0; i < s.tokens; i++ {
		due := start.Add(s.ttft + time.Duration(i)*s.gap)
		if !sleepCtx(ctx, time.Until(due)) {
			return ctx.Err()
		}
		tr.Token(time.Now(), 1)
	}
	if !s.noUsage {
		tr.Usage(req.PromptTokens, s.tokens)
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// drain collects every event until the channel closes.
func drain(ch <-chan Event) (evs []Event, res Results) {
	for e := range ch {
		evs = append(evs, e)
		if f, ok := e.(Finished); ok {
			res = f.Results
		}
	}
	return evs, res
}
