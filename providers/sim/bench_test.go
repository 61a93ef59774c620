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
	trs := make([]engine.Trace, 1024)
	// fresh returns a core whose 1,024 sequences are decoding at context
	// 214 (the default workload's mean), as in a steady closed loop.
	fresh := func() *core {
		c := newCore(p, 1)
		for i := range trs {
			trs[i] = engine.Trace{}
			q := &seq{prompt: 150, generated: 64, computed: 213, outLen: 1 << 30, finish: "length", done: make(chan struct{}), tr: &trs[i]}
			q.blocks = c.blocksFor(q.computed)
			c.freeBlocks -= q.blocks
			q.state = stateRunning
			c.running = append(c.running, q)
		}
		return c
	}
	c := fresh()
	now := time.Unix(0, 0)
	var sim time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%128 == 127 {
			// Keep contexts near the workload's and Trace buffers bounded,
			// as the engine's per-request reset does.
			b.StopTimer()
			c = fresh()
			b.StartTimer()
		}
		pl := c.plan()
		sim += pl.dur
		now = now.Add(pl.dur)
		c.commit(now)
	}
	b.StopTimer()
	if c.stats.preemptions != 0 {
		b.Fatalf("%d preemptions: the benchmark left the steady state", c.stats.preemptions)
	}
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
