package engine

import (
	"context"
	"testing"
	"time"
)

// waitFor reads events until one satisfies ok, returning it.
func waitFor[T Event](t *testing.T, ch <-chan Event, ok func(T) bool) T {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, open := <-ch:
			if !open {
				t.Fatalf("channel closed before the expected %T", *new(T))
			}
			if v, is := e.(T); is && ok(v) {
				return v
			}
		case <-timeout:
			t.Fatalf("timed out waiting for %T", *new(T))
		}
	}
}

func fastPlan(levels ...int) Plan {
	return Plan{Levels: levels, Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond, Grace: time.Second}
}

func TestManualHoldAndResume(t *testing.T) {
	p := &scripted{ttft: 5 * time.Millisecond, gap: time.Millisecond, tokens: 5}
	run := New(p, fastPlan(1, 2, 4), WithSnapshotEvery(20*time.Millisecond))
	ch := run.Start(context.Background())
	waitFor(t, ch, func(s Snapshot) bool { return s.Phase == PhaseMeasuring && s.Target == 1 })
	run.AddConcurrency(+1) // 1 -> 2, manual
	waitFor(t, ch, func(s Snapshot) bool { return s.Phase == PhaseManual && s.Target == 2 })
	run.ScaleConcurrency(2) // 2 -> 4, still manual
	waitFor(t, ch, func(c ConcurrencyChanged) bool { return c.Change.To == 4 && c.Change.Source == SourceManual })
	time.Sleep(250 * time.Millisecond) // past the manual warmup so the hold measures
	run.Resume()                       // back to the plan at the level after the interrupted one (2)
	_, res := drain(ch)

	var sources []string
	var concs []int
	for _, l := range res.Levels {
		sources = append(sources, l.Source)
		concs = append(concs, l.Concurrency)
	}
	// the interrupted c=1 window, the c=4 manual hold, then planned 2 and 4
	want := []int{1, 4, 2, 4}
	if len(concs) != len(want) {
		t.Fatalf("levels %v (%v), want %v", concs, sources, want)
	}
	for i := range want {
		if concs[i] != want[i] {
			t.Fatalf("levels %v (%v), want %v", concs, sources, want)
		}
	}
	if res.Levels[0].Complete || res.Levels[1].Source != SourceManual || !res.Levels[3].Complete {
		t.Errorf("segments wrong: %+v", res.Levels)
	}
	var manual int
	for _, e := range res.Events {
		if e.Source == SourceManual {
			manual++
		}
	}
	if manual != 2 {
		t.Errorf("manual change events = %d, want 2: %+v", manual, res.Events)
	}
}

func TestStopIsPartialAndKeepsLevels(t *testing.T) {
	p := &scripted{ttft: 5 * time.Millisecond, gap: time.Millisecond, tokens: 5}
	run := New(p, fastPlan(1, 2, 4, 8), WithSnapshotEvery(20*time.Millisecond))
	ch := run.Start(context.Background())
	waitFor(t, ch, func(l LevelDone) bool { return l.Level.Concurrency == 1 })
	run.Stop("user pressed q")
	_, res := drain(ch)
	if !res.Partial || res.PartialReason != "user pressed q" {
		t.Errorf("partial=%v reason=%q", res.Partial, res.PartialReason)
	}
	if len(res.Levels) < 1 || res.Levels[0].Succeeded == 0 {
		t.Errorf("finished level lost: %+v", res.Levels)
	}
}

func TestContextCancelStopsRun(t *testing.T) {
	p := &scripted{ttft: 50 * time.Millisecond, gap: 10 * time.Millisecond, tokens: 100}
	ctx, cancel := context.WithCancel(context.Background())
	plan := fastPlan(8)
	plan.Grace = 20 * time.Millisecond
	run := New(p, plan)
	ch := run.Start(ctx)
	time.Sleep(200 * time.Millisecond)
	cancel()
	start := time.Now()
	_, res := drain(ch)
	if !res.Partial || res.PartialReason != "interrupted" {
		t.Errorf("partial=%v reason=%q", res.Partial, res.PartialReason)
	}
	// requests take 1 s; the grace is 20 ms, so the run must cancel them
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("stop took %s: in-flight requests were not cancelled after the grace", d)
	}
}

func TestPauseStopsSending(t *testing.T) {
	p := &scripted{ttft: 5 * time.Millisecond, gap: time.Millisecond, tokens: 3}
	plan := fastPlan(2)
	plan.Duration = 5 * time.Second
	run := New(p, plan, WithSnapshotEvery(20*time.Millisecond))
	ch := run.Start(context.Background())
	waitFor(t, ch, func(s Snapshot) bool { return s.Phase == PhaseMeasuring })
	run.TogglePause()
	waitFor(t, ch, func(s Snapshot) bool { return s.Phase == PhasePaused && s.InFlight == 0 })
	time.Sleep(100 * time.Millisecond)
	if p.inflight.Load() != 0 {
		t.Errorf("requests in flight while paused")
	}
	run.TogglePause()
	waitFor(t, ch, func(s Snapshot) bool { return s.Phase == PhaseWarmup && s.InFlight > 0 })
	run.Stop("")
	drain(ch)
}

func TestNextLevelSkips(t *testing.T) {
	p := &scripted{ttft: 5 * time.Millisecond, gap: time.Millisecond, tokens: 3}
	plan := fastPlan(1, 2)
	plan.Duration = 10 * time.Second
	run := New(p, plan, WithSnapshotEvery(20*time.Millisecond))
	ch := run.Start(context.Background())
	waitFor(t, ch, func(s Snapshot) bool { return s.Phase == PhaseMeasuring && s.Target == 1 })
	run.NextLevel()
	waitFor(t, ch, func(s Snapshot) bool { return s.Target == 2 })
	run.Stop("")
	_, res := drain(ch)
	if len(res.Levels) == 0 || res.Levels[0].Complete {
		t.Errorf("skipped level should be recorded as incomplete: %+v", res.Levels)
	}
}

// TestFailuresNeverEnterLatency: failed requests are counted by class and
// excluded from latency and throughput.
func TestFailuresNeverEnterLatency(t *testing.T) {
	p := &scripted{ttft: 10 * time.Millisecond, gap: time.Millisecond, tokens: 3, failEvery: 2,
		fail: &Failure{Class: ClassServer, Status: 500, Message: "boom"}}
	plan := fastPlan(2)
	run := New(p, plan)
	_, res := drain(run.Start(context.Background()))
	l := res.Levels[0]
	if l.Failed == 0 || l.Errors["server_error"] != l.Failed {
		t.Fatalf("failures not classified: %+v", l.Errors)
	}
	if l.Latency.Count != l.Succeeded || l.TTFT.Count != l.Succeeded {
		t.Errorf("latency samples %d, ttft %d, want only the %d successes", l.Latency.Count, l.TTFT.Count, l.Succeeded)
	}
	if l.OutputTokens != 3*l.Succeeded {
		t.Errorf("tokens %d include failed requests (ok=%d)", l.OutputTokens, l.Succeeded)
	}
	if l.LastError == "" {
		t.Errorf("server message lost")
	}
}

// TestRateLimitBackoff: a 429 with Retry-After makes the worker wait,
// visible as backing off, instead of hammering the server.
func TestRateLimitBackoff(t *testing.T) {
	p := &scripted{ttft: time.Millisecond, gap: time.Millisecond, tokens: 2, failEvery: 1,
		fail: &Failure{Class: ClassRateLimited, Status: 429, RetryAfter: 300 * time.Millisecond}}
	plan := fastPlan(2)
	plan.Duration = 600 * time.Millisecond
	run := New(p, plan, WithSnapshotEvery(20*time.Millisecond))
	ch := run.Start(context.Background())
	s := waitFor(t, ch, func(s Snapshot) bool { return s.BackingOff > 0 })
	if s.LastRetryAfter != 300*time.Millisecond {
		t.Errorf("last Retry-After = %s", s.LastRetryAfter)
	}
	_, res := drain(ch)
	// 2 workers, ~0.7 s of run, each waits >= 300 ms per 429: at most ~6 requests
	if n := p.n.Load(); n > 8 {
		t.Errorf("%d requests sent: Retry-After not honoured", n)
	}
	if res.Levels[0].RateLimited == 0 {
		t.Errorf("429s not counted: %+v", res.Levels[0])
	}
}

func TestRetriesAreOptInAndCounted(t *testing.T) {
	p := &scripted{ttft: time.Millisecond, gap: time.Millisecond, tokens: 2, failEvery: 2,
		fail: &Failure{Class: ClassOverloaded, Status: 503, RetryAfter: 10 * time.Millisecond}}
	plan := fastPlan(1)
	plan.MaxRetries = 2
	_, res := drain(New(p, plan).Start(context.Background()))
	l := res.Levels[0]
	if l.Retries == 0 || l.Failed != 0 {
		t.Fatalf("retries=%d failed=%d: every other request fails once and must be retried", l.Retries, l.Failed)
	}
	if l.RetriedLatency.Count == 0 || l.RetriedLatency.P50 < 10 {
		t.Errorf("retried latency must include the backoff wait: %+v", l.RetriedLatency)
	}
	if l.Latency.Count+l.RetriedLatency.Count != l.Succeeded {
		t.Errorf("single-attempt %d + retried %d != succeeded %d", l.Latency.Count, l.RetriedLatency.Count, l.Succeeded)
	}
}

func TestPublisherDropsOnlySnapshots(t *testing.T) {
	p := newPublisher()
	for i := 0; i < 100; i++ {
		p.snapshot(Snapshot{Target: i})
		p.send(LevelStarted{Index: i})
	}
	p.close()
	var started, snaps int
	last := -1
	for e := range p.out {
		switch v := e.(type) {
		case LevelStarted:
			if v.Index != last+1 {
				t.Fatalf("ordered event %d after %d", v.Index, last)
			}
			last = v.Index
			started++
		case Snapshot:
			snaps++
		}
	}
	if started != 100 {
		t.Errorf("delivered %d of 100 ordered events", started)
	}
	if snaps > 1 {
		t.Errorf("a slow reader got %d snapshots, want only the latest", snaps)
	}
}
