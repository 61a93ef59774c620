package sim

import (
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// BenchmarkStep1024 measures the scheduler's CPU cost of one step with
// 1,024 running sequences (plan + commit, a Trace token per sequence) on
// the default profile, and reports the share of one core a real-time run
// at that batch costs: ns per step / simulated step time.
func BenchmarkStep1024(b *testing.B) {
	p, _ := LookupProfile(DefaultProfile)
	c := newCore(p, 1)
	trs := make([]engine.Trace, 1024)
	for i := range 1024 {
		q := &seq{prompt: 150, outLen: 1 << 30, finish: "length", done: make(chan struct{}), tr: &trs[i]}
		c.add(q)
	}
	now := time.Unix(0, 0)
	for c.stats.genTokens < 1024 { // finish the prefills
		pl := c.plan()
		now = now.Add(pl.dur)
		c.commit(now)
	}
	var sim time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%256 == 0 {
			// Keep Trace gap buffers bounded as the engine's per-request reset does.
			b.StopTimer()
			for j := range trs {
				trs[j] = engine.Trace{}
			}
			b.StartTimer()
		}
		pl := c.plan()
		sim += pl.dur
		now = now.Add(pl.dur)
		c.commit(now)
	}
	b.StopTimer()
	if b.N > 0 && sim > 0 {
		nsPerStep := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(float64(sim.Nanoseconds())/float64(b.N)/1e6, "sim-ms/step")
		b.ReportMetric(nsPerStep/(float64(sim.Nanoseconds())/float64(b.N)), "core-share")
	}
}

// BenchmarkDo measures one whole request through the real-time driver on
// the fast profile (allocations per request, not per token).
func BenchmarkDo(b *testing.B) {
	p, _ := LookupProfile("soak-fast")
	p.TimeScale = 0.001
	s, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var tr engine.Trace
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		tr = engine.Trace{}
		if err := s.Do(b.Context(), engine.Request{ID: uint64(i), PromptTokens: 100, MaxTokens: 64}, &tr); err != nil {
			b.Fatal(err)
		}
	}
}
