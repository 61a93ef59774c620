package engine

import (
	"context"
	"testing"
	"time"
)

// instant answers at once with n token chunks: what is left is the
// engine's own per-request cost.
type instant struct{ tokens int }

func (p instant) Do(ctx context.Context, req Request, tr *Trace) error {
	now := time.Now()
	tr.Start(now)
	for i := 0; i < p.tokens; i++ {
		tr.Token(now, 1)
	}
	tr.Usage(req.PromptTokens, p.tokens)
	return nil
}

// BenchmarkRequestOverhead is the engine's cost per request (closed loop,
// stats, histograms, in-flight integral) with a provider that costs
// nothing. ns/op is per request.
func BenchmarkRequestOverhead(b *testing.B) {
	for _, c := range []int{1, 64} {
		b.Run(map[int]string{1: "c=1", 64: "c=64"}[c], func(b *testing.B) {
			plan := Plan{Levels: []int{c}, RequestsPerLevel: b.N}
			run := New(instant{tokens: 16}, plan)
			b.ReportAllocs()
			b.ResetTimer()
			_, res := drain(run.Start(context.Background()))
			b.StopTimer()
			if res.Levels[0].Succeeded < int64(b.N) {
				b.Fatalf("%d of %d", res.Levels[0].Succeeded, b.N)
			}
		})
	}
}

// BenchmarkHistRecord is the cost of recording one latency sample.
func BenchmarkHistRecord(b *testing.B) {
	h := newHist()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		h.record(time.Duration(i%100000) * time.Microsecond)
	}
}

// BenchmarkSnapshot is the cost of building one snapshot (merging the live
// window's histograms), done at most 4 times a second.
func BenchmarkSnapshot(b *testing.B) {
	run := New(instant{tokens: 1}, Plan{Levels: []int{1}, Duration: time.Hour})
	run.start = time.Now()
	run.pub = newPublisher()
	run.st = newStats(run.start, 5*time.Second)
	run.health = newHealthProbe(run.start)
	for i := 0; i < 10000; i++ {
		g := run.st.live.at(time.Now())
		g.latency.record(time.Duration(i) * time.Microsecond)
		g.ttft.record(time.Duration(i) * time.Microsecond)
		g.itl.record(time.Duration(i%1000) * time.Microsecond)
	}
	go func() {
		for range run.pub.out {
		}
	}()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run.publishSnapshot(phaseClock{phase: PhaseMeasuring, began: run.start}, nil, 0)
	}
}
