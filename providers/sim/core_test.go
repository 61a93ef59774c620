package sim

import (
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// tinyProfile is a hand-sized server for exact scheduler tests: no jitter,
// no early stops, a flat 10 ms decode step.
func tinyProfile(kvBlocks, maxSeqs, budget int) Profile {
	p := base("tiny", "test")
	p.Model = "tiny"
	p.Step = StepModel{A0: 10, Q: 1, P0: 10}
	p.MaxNumSeqs = maxSeqs
	p.MaxBatchedTokens = budget
	p.MaxModelLen = 1 << 20
	p.KVBlocks = kvBlocks
	p.Jitter = 0
	p.EarlyStop = 0
	return p
}

// run drives c until every given sequence is done (or maxSteps), on a
// virtual timeline from t0, returning the number of steps.
func run(t *testing.T, c *core, t0 time.Time, maxSteps int, qs ...*seq) (time.Time, int) {
	t.Helper()
	now := t0
	for step := 0; step < maxSteps; step++ {
		done := true
		for _, q := range qs {
			done = done && q.state == stateDone
		}
		if done {
			return now, step
		}
		pl := c.plan()
		if pl.scheduled == 0 && pl.preempted == 0 {
			t.Fatalf("step %d: nothing scheduled with work left", step)
		}
		now = now.Add(pl.dur)
		c.commit(now)
	}
	t.Fatalf("not done after %d steps", maxSteps)
	return now, maxSteps
}

func newTestSeq(prompt, out int) *seq {
	return &seq{prompt: prompt, outLen: out, finish: "length", done: make(chan struct{}), tr: &engine.Trace{}}
}

func TestChunkedPrefill(t *testing.T) {
	tests := []struct {
		name             string
		prompt, budget   int
		wantPrefillSteps int
	}{
		{"fits in one step", 100, 8192, 1},
		{"exactly the budget", 8192, 8192, 1},
		{"split over three steps", 20000, 8192, 3},
		{"small budget", 100, 16, 7},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCore(tinyProfile(1<<20, 8, tc.budget), 1)
			q := newTestSeq(tc.prompt, 4)
			q.tr.Start(time.Unix(0, 0))
			c.add(q)
			_, steps := run(t, c, time.Unix(0, 0), 1000, q)
			if want := tc.wantPrefillSteps + 3; steps != want {
				t.Errorf("steps = %d, want %d prefill + 3 decode", steps, tc.wantPrefillSteps)
			}
			if got := q.tr.Chunks(); got != 4 {
				t.Errorf("tokens = %d, want 4", got)
			}
			if c.stats.promptTokens != uint64(tc.prompt) {
				t.Errorf("prompt tokens computed = %d, want %d", c.stats.promptTokens, tc.prompt)
			}
		})
	}
}

// TestPreemptionRecompute fills a tiny KV cache so the newest sequence is
// preempted, then checks it is recomputed (prompt + output so far) and
// still yields exactly its tokens, with KV fully released at the end.
func TestPreemptionRecompute(t *testing.T) {
	// 4 blocks of 16 tokens: two sequences of prompt 16 fit (1 block each)
	// until they grow; each needs 3 blocks to finish 20 tokens.
	c := newCore(tinyProfile(4, 8, 8192), 1)
	a, b := newTestSeq(16, 20), newTestSeq(16, 20)
	t0 := time.Unix(0, 0)
	a.tr.Start(t0)
	b.tr.Start(t0)
	c.add(a)
	c.add(b)
	run(t, c, t0, 1000, a, b)
	if c.stats.preemptions == 0 {
		t.Fatal("no preemption with an exhausted KV cache")
	}
	if b.preempted == 0 || a.preempted != 0 {
		t.Errorf("preempted a=%d b=%d, want only the newest (b)", a.preempted, b.preempted)
	}
	for name, q := range map[string]*seq{"a": a, "b": b} {
		if n, _ := q.tr.OutputTokens(); n != 20 || q.tr.Chunks() != 20 {
			t.Errorf("%s: %d tokens (%d chunks), want 20", name, n, q.tr.Chunks())
		}
	}
	if c.stats.promptTokens <= 32 {
		t.Errorf("prompt tokens computed %d: recompute should add to the 32 of the prompts", c.stats.promptTokens)
	}
	if c.freeBlocks != 4 || len(c.running) != 0 || c.nWaiting != 0 {
		t.Errorf("after the run: free %d running %d waiting %d", c.freeBlocks, len(c.running), c.nWaiting)
	}
	// b waited for a: its last token comes well after a's.
	if !b.tr.StartTime().Add(b.tr.E2E()).After(a.tr.StartTime().Add(a.tr.E2E())) {
		t.Error("preempted sequence finished before the one that kept running")
	}
}

func TestMaxNumSeqsQueues(t *testing.T) {
	c := newCore(tinyProfile(1<<20, 2, 8192), 1)
	t0 := time.Unix(0, 0)
	qs := make([]*seq, 5)
	for i := range qs {
		qs[i] = newTestSeq(10, 5)
		qs[i].tr.Start(t0)
		c.add(qs[i])
	}
	c.plan()
	if len(c.running) != 2 || c.nWaiting != 3 {
		t.Fatalf("running %d waiting %d, want 2 and 3", len(c.running), c.nWaiting)
	}
	c.commit(t0.Add(10 * time.Millisecond))
	run(t, c, t0.Add(10*time.Millisecond), 1000, qs...)
	// FIFO admission: TTFT grows with queue position.
	for i := 2; i < len(qs); i++ {
		if qs[i].tr.TTFT() <= qs[i-2].tr.TTFT() {
			t.Errorf("seq %d TTFT %v not after seq %d's %v", i, qs[i].tr.TTFT(), i-2, qs[i-2].tr.TTFT())
		}
	}
}

func TestRemoveFreesKV(t *testing.T) {
	c := newCore(tinyProfile(100, 8, 8192), 1)
	a, b := newTestSeq(100, 50), newTestSeq(100, 50)
	c.add(a)
	c.add(b)
	c.plan()
	c.commit(time.Unix(0, 1))
	if c.freeBlocks != 100-2*7 {
		t.Fatalf("free blocks %d", c.freeBlocks)
	}
	if !c.remove(a) || len(c.running) != 1 || c.freeBlocks != 100-7 {
		t.Errorf("after removing a running seq: running %d free %d", len(c.running), c.freeBlocks)
	}
	w := newTestSeq(10, 1)
	c.add(w)
	if !c.remove(w) || c.nWaiting != 0 {
		t.Errorf("removing a waiting seq: waiting %d", c.nWaiting)
	}
	if pl := c.plan(); pl.scheduled != 1 {
		t.Errorf("scheduled %d, want only b", pl.scheduled)
	}
}

// TestThroughputPlateau: throughput grows almost linearly while steps are
// bound by streaming the weights, then flattens as they become bound by
// compute and KV reads, and stops growing past max_num_seqs.
func TestThroughputPlateau(t *testing.T) {
	p, _ := LookupProfile(DefaultProfile)
	x := map[int]LoadResult{}
	for _, n := range []int{1, 8, 256, 512, 1024, 2048} {
		x[n] = VirtualLoad(p, n, 150, 128, 15*time.Second, 20*time.Second, 1)
	}
	if r := x[8].OutputTokPerS / x[1].OutputTokPerS; r < 7 {
		t.Errorf("8 vs 1: throughput x%.2f, want near-linear (> 7)", r)
	}
	if r := x[512].OutputTokPerS / x[256].OutputTokPerS; r > 1.25 {
		t.Errorf("512 vs 256: throughput x%.2f, want a plateau (< 1.25)", r)
	}
	if r := x[2048].OutputTokPerS / x[1024].OutputTokPerS; r > 1.02 {
		t.Errorf("2048 vs 1024: throughput x%.2f, want flat past max_num_seqs", r)
	}
	if x[2048].TTFTP50 < 10*x[1024].TTFTP50 {
		t.Errorf("TTFT p50 %v at 2048 vs %v at 1024: queueing past max_num_seqs should raise it >10x", x[2048].TTFTP50, x[1024].TTFTP50)
	}
	if w := x[2048].MeanWaiting; w < 900 {
		t.Errorf("mean waiting at 2048 = %.0f, want ~1024", w)
	}
}

// TestL4KVKnee: on the 24 GB profile the KV cache, not max_num_seqs, ends
// the growth: preemptions appear and requests wait while running stays
// below max_num_seqs.
func TestL4KVKnee(t *testing.T) {
	p, _ := LookupProfile("l4-llama3-8b")
	lo := VirtualLoad(p, 64, 150, 128, 20*time.Second, 30*time.Second, 1)
	hi := VirtualLoad(p, 256, 150, 128, 20*time.Second, 30*time.Second, 1)
	t.Logf("C=64: %.0f tok/s TTFT p50 %v running %.0f preemptions %d KV %.2f", lo.OutputTokPerS, lo.TTFTP50, lo.MeanRunning, lo.Preemptions, lo.MaxKVUsage)
	t.Logf("C=256: %.0f tok/s TTFT p50 %v running %.0f waiting %.0f preemptions %d KV %.2f", hi.OutputTokPerS, hi.TTFTP50, hi.MeanRunning, hi.MeanWaiting, hi.Preemptions, hi.MaxKVUsage)
	if lo.Preemptions != 0 {
		t.Errorf("C=64 preempted %d times, want none", lo.Preemptions)
	}
	if hi.Preemptions == 0 || hi.MaxKVUsage < 0.95 {
		t.Errorf("C=256: preemptions %d, max KV %.2f: want KV exhaustion", hi.Preemptions, hi.MaxKVUsage)
	}
	if hi.MeanRunning >= float64(p.MaxNumSeqs)*0.9 || hi.MeanWaiting < 10 {
		t.Errorf("C=256: running %.0f waiting %.0f: KV, not max_num_seqs, should cap the batch", hi.MeanRunning, hi.MeanWaiting)
	}
}

func TestVirtualLoadReproducible(t *testing.T) {
	p, _ := LookupProfile(DefaultProfile)
	a := VirtualLoad(p, 32, 150, 128, 2*time.Second, 5*time.Second, 7)
	b := VirtualLoad(p, 32, 150, 128, 2*time.Second, 5*time.Second, 7)
	c := VirtualLoad(p, 32, 150, 128, 2*time.Second, 5*time.Second, 8)
	if a != b {
		t.Errorf("same seed, different results:\n%+v\n%+v", a, b)
	}
	if a == c {
		t.Error("different seeds gave identical results")
	}
}

// TestOutputLengths: most requests run to max_tokens (ignore_eos-like),
// about EarlyStop of them stop early in the second half of their budget,
// and the draw depends only on seeds and IDs.
func TestOutputLengths(t *testing.T) {
	p, _ := LookupProfile(DefaultProfile)
	s := &Sim{prof: p, seed: 3}
	var full, early int
	for id := uint64(0); id < 2000; id++ {
		q, _, err := s.newSeq(engine.Request{ID: id, Seed: 9, PromptTokens: 150, MaxTokens: 128}, false)
		if err != nil {
			t.Fatal(err)
		}
		q2, _, _ := s.newSeq(engine.Request{ID: id, Seed: 9, PromptTokens: 150, MaxTokens: 128}, false)
		if q.outLen != q2.outLen {
			t.Fatal("output length not reproducible")
		}
		switch {
		case q.outLen == 128 && q.finish == "length":
			full++
		case q.outLen >= 64 && q.outLen < 128 && q.finish == "stop":
			early++
		default:
			t.Fatalf("id %d: outLen %d finish %s", id, q.outLen, q.finish)
		}
	}
	if share := float64(early) / 2000; share < 0.07 || share > 0.13 {
		t.Errorf("early-stop share %.3f, want ~%.2f", share, p.EarlyStop)
	}
}

func TestRequestValidation(t *testing.T) {
	p, _ := LookupProfile(DefaultProfile)
	s := &Sim{prof: p, seed: 1}
	tests := []struct {
		name       string
		req        engine.Request
		wantStatus int
	}{
		{"ok", engine.Request{PromptTokens: 100, MaxTokens: 100}, 0},
		{"no max tokens", engine.Request{PromptTokens: 100}, 0},
		{"zero prompt", engine.Request{MaxTokens: 10}, 0},
		{"over context", engine.Request{PromptTokens: 8000, MaxTokens: 500}, 400},
		{"prompt fills context", engine.Request{PromptTokens: 8192}, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := s.newSeq(tc.req, false)
			f := engine.Classify(err)
			switch {
			case tc.wantStatus == 0 && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.wantStatus != 0 && (f == nil || f.Status != tc.wantStatus || f.Class != engine.ClassClient):
				t.Errorf("got %v, want status %d", err, tc.wantStatus)
			}
		})
	}
}

func TestCommitAllocatesNothing(t *testing.T) {
	p := tinyProfile(1<<20, 64, 8192)
	c := newCore(p, 1)
	for range 64 {
		q := newTestSeq(10, 1<<30)
		q.tr = nil
		q.ready = make(chan struct{}, 1)
		c.add(q)
	}
	now := time.Unix(0, 0)
	allocs := testing.AllocsPerRun(200, func() {
		pl := c.plan()
		now = now.Add(pl.dur)
		c.commit(now)
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per step, want 0", allocs)
	}
}
