package ui

import (
	"fmt"
	"math"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/kneepoint/kneepoint/engine"
)

// fakeCtl records Controller calls.
type fakeCtl struct {
	mu    sync.Mutex
	calls []string
}

var _ engine.Controller = (*fakeCtl)(nil)

func (f *fakeCtl) rec(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeCtl) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeCtl) SetConcurrency(n int)       { f.rec(fmt.Sprintf("SetConcurrency(%d)", n)) }
func (f *fakeCtl) AddConcurrency(d int)       { f.rec(fmt.Sprintf("AddConcurrency(%d)", d)) }
func (f *fakeCtl) ScaleConcurrency(x float64) { f.rec(fmt.Sprintf("ScaleConcurrency(%g)", x)) }
func (f *fakeCtl) Resume()                    { f.rec("Resume()") }
func (f *fakeCtl) TogglePause()               { f.rec("TogglePause()") }
func (f *fakeCtl) NextLevel()                 { f.rec("NextLevel()") }
func (f *fakeCtl) Stop(reason string)         { f.rec("Stop") }

// level is one scripted level: what an 8B model on one H200 plausibly does
// with 512-token prompts and 256 output tokens.
type level struct {
	c          int
	tok        float64 // output tok/s
	p50, p95   float64 // e2e ms
	ttft95     float64
	itl95      float64
	failShare  float64
	rateLimits int64
}

var scriptLevels = []level{
	{1, 205, 1190, 1240, 38, 4.8, 0, 0},
	{2, 401, 1215, 1270, 41, 4.9, 0, 0},
	{4, 790, 1230, 1300, 46, 5.0, 0, 0},
	{8, 1561, 1262, 1345, 55, 5.1, 0, 0},
	{16, 3048, 1290, 1390, 72, 5.3, 0, 0},
	{32, 5702, 1380, 1510, 110, 5.7, 0, 0},
	{64, 9804, 1610, 1780, 230, 6.4, 0.002, 0},
	{128, 11890, 2650, 2960, 1150, 8.8, 0.011, 3},
	{256, 12410, 5100, 5640, 3720, 9.4, 0.034, 41},
}

var scriptPlan = engine.Plan{
	Levels:   []int{1, 2, 4, 8, 16, 32, 64, 128, 256, 512},
	Warmup:   2 * time.Second,
	Duration: 6 * time.Second,
	Grace:    time.Second,
}

var scriptOpts = Options{
	OutPath:  "results-2025-11-30.json",
	Target:   engine.Target{Provider: "sim", Model: "llama3-8b", BaseURL: "sim://h200?key=secret", Profile: "h200-dense"},
	Plan:     scriptPlan,
	Workload: engine.Workload{PromptTokens: 512, MaxTokens: 256, Stream: true},
}

// wobble is deterministic noise in [-1, 1].
func wobble(i int) float64 { return math.Sin(float64(i)*1.7) * math.Cos(float64(i)*0.31) }

// script is a fixed sweep of levels[:n] (n <= len) as the engine would
// publish it: LevelStarted, snapshots every 250 ms through warmup and the
// window, LevelDone; the knee after the level past it; Finished when
// finish is true. partial adds snapshots of a level in progress.
func script(n int, partial, finish bool) []engine.Event {
	var evs []engine.Event
	var at time.Duration
	var sent, ok, failed, rl, retries int64
	errs := map[string]int64{}
	var levels []engine.LevelResult
	step := 250 * time.Millisecond
	plen := len(scriptPlan.Levels)
	snap := func(i, k int, l level, phase engine.Phase, left time.Duration, seg int) engine.Snapshot {
		j := float64(wobble(i*100 + k))
		rps := l.tok / 256
		done := int64(math.Round(rps * 0.25))
		f := int64(math.Round(float64(done) * l.failShare))
		ok += done - f
		failed += f
		sent += done
		if f > 0 {
			errs["overloaded"] += f
		}
		var ra time.Duration
		var hdr map[string]string
		if l.rateLimits > 0 {
			rl += 1
			failed++
			errs["rate_limited"]++
			retries++
			ra = 2 * time.Second
			hdr = map[string]string{"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1.2s"}
		}
		e := map[string]int64{}
		for c, v := range errs {
			e[c] = v
		}
		return engine.Snapshot{
			At: at, Phase: phase, Source: engine.SourcePlan, Segment: seg,
			PlanIndex: i, PlanLen: plen, Target: l.c, InFlight: l.c,
			PhaseElapsed: 0, PhaseLeft: left, Remaining: time.Duration(plen-i)*8*time.Second - (at % (8 * time.Second)),
			Window:        5 * time.Second,
			Latency:       engine.Dist{Count: 40, P50: l.p50 * (1 + 0.03*j), P95: l.p95 * (1 + 0.05*j)},
			TTFT:          engine.Dist{Count: 40, P50: l.ttft95 * 0.6 * (1 + 0.05*j), P95: l.ttft95 * (1 + 0.08*j)},
			ITL:           engine.Dist{Count: 4000, P50: l.itl95 * 0.92, P95: l.itl95 * (1 + 0.02*j)},
			OutputTokPerS: l.tok * (1 + 0.04*j), RequestsPerS: rps * (1 + 0.04*j),
			SegMeanInFlight: float64(l.c) * 0.99, SegSucceeded: ok,
			Sent: sent, Succeeded: ok, Failed: failed, RateLimited: rl, Errors: e, Retries: retries,
			LastRetryAfter: ra, LastRateHeaders: hdr,
			ErrorShare:     l.failShare * (1 + 0.2*j),
			DispatchLagP99: time.Duration((0.2 + 0.004*float64(l.c)) * (1 + 0.1*j) * float64(time.Millisecond)),
			CPUShare:       0.01 + 0.0004*float64(l.c),
			OpenConns:      int64(l.c),
		}
	}
	for i := 0; i < n; i++ {
		l := scriptLevels[i]
		start := at
		evs = append(evs, engine.LevelStarted{Index: i, Concurrency: l.c, Source: engine.SourcePlan, PlanIndex: i, At: at})
		for k := 0; k < 32; k++ {
			phase, left := engine.PhaseWarmup, 2*time.Second-time.Duration(k)*step
			if k >= 8 {
				phase, left = engine.PhaseMeasuring, 8*time.Second-time.Duration(k)*step
			}
			at += step
			evs = append(evs, snap(i, k, l, phase, left, i))
		}
		requests := int64(l.tok / 256 * 6)
		fails := int64(math.Round(float64(requests) * l.failShare))
		lr := engine.LevelResult{
			Index: i, Concurrency: l.c, Source: engine.SourcePlan,
			StartS: start.Seconds(), WarmupS: 2, DurationS: 6, Complete: true,
			Sent: requests, Requests: requests, Succeeded: requests - fails, Failed: fails,
			RateLimited: l.rateLimits, Errors: map[string]int64{"overloaded": fails - l.rateLimits, "rate_limited": l.rateLimits},
			Latency:      engine.Dist{Count: requests, P50: l.p50, P90: l.p95 * 0.97, P95: l.p95, P99: l.p95 * 1.08, Max: l.p95 * 1.2, Mean: l.p50 * 1.01},
			TTFT:         engine.Dist{Count: requests, P50: l.ttft95 * 0.6, P95: l.ttft95, P99: l.ttft95 * 1.2},
			ITL:          engine.Dist{Count: requests * 255, P50: l.itl95 * 0.92, P95: l.itl95, P99: l.itl95 * 1.3},
			OutputTokens: int64(l.tok * 6), InputTokens: requests * 512,
			OutputTokPerS: l.tok, RequestsPerS: l.tok / 256,
			MeanInFlight: float64(l.c) * 0.99, LittleInFlight: float64(l.c) * 0.98,
			DispatchLagMs: 0.2 + 0.004*float64(l.c),
		}
		levels = append(levels, lr)
		evs = append(evs, engine.LevelDone{Level: lr})
		if l.c == 256 {
			evs = append(evs, engine.KneeFound{Knee: engine.Knee{Concurrency: 64, Level: 6, Cause: "capacity",
				Trigger: "elasticity", Reason: "throughput elasticity fell to 0.29 past c=64 while p95 grew 66%", BestX2C: 64}})
		}
	}
	if partial && n < len(scriptLevels) {
		l := scriptLevels[n]
		evs = append(evs, engine.LevelStarted{Index: n, Concurrency: l.c, Source: engine.SourcePlan, PlanIndex: n, At: at})
		for k := 0; k < 14; k++ {
			phase, left := engine.PhaseWarmup, 2*time.Second-time.Duration(k)*step
			if k >= 8 {
				phase, left = engine.PhaseMeasuring, 8*time.Second-time.Duration(k)*step
			}
			at += step
			evs = append(evs, snap(n, k, l, phase, left, n))
		}
	}
	if finish {
		knee := &engine.Knee{Concurrency: 64, Level: 6, Cause: "capacity", Trigger: "elasticity",
			Reason: "throughput elasticity fell to 0.29 past c=64 while p95 grew 66%", BestX2C: 64}
		if n < 9 {
			knee = nil
		}
		evs = append(evs, engine.Finished{Results: engine.Results{
			Schema: engine.SchemaV1, DurationS: at.Seconds(), Target: scriptOpts.Target,
			Workload: scriptOpts.Workload, Levels: levels, Knee: knee,
			KneeNote: "confirmed by one level past the knee",
		}})
	}
	return evs
}

// feed applies events through Update, as the program would.
func feed(m Model, evs ...engine.Event) Model {
	for _, ev := range evs {
		next, _ := m.Update(eventMsg{ev})
		m = next.(Model)
	}
	return m
}

// sized applies a window size.
func sized(m Model, w, h int) Model {
	next, _ := m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return next.(Model)
}

// snapAt is a snapshot with every latency at v ms.
func snapAt(at time.Duration, v float64) engine.Snapshot {
	d := engine.Dist{Count: 1, P50: v, P95: v}
	return engine.Snapshot{At: at, Phase: engine.PhaseMeasuring, Latency: d, TTFT: d, ITL: d}
}

// engineLevel is a finished level at concurrency c with tok output tok/s.
func engineLevel(c int, tok float64) engine.LevelDone {
	return engine.LevelDone{Level: engine.LevelResult{Concurrency: c, Source: engine.SourcePlan,
		Succeeded: 10, Requests: 10, OutputTokPerS: tok, Latency: engine.Dist{Count: 10, P50: 100, P95: 120}}}
}

// sloOpts is scriptOpts with objectives and an hourly price: a p95 bound of
// 1.5 s that levels up to c=16 meet, a TTFT bound every level to c=64
// meets, judged at c=64; an H200 rented at $3.50 an hour.
var sloOpts = func() Options {
	o := scriptOpts
	o.SLO = engine.SLO{LatencyP95Ms: 1500, TTFTP95Ms: 500, AtConcurrency: 64}
	o.Cost = engine.Cost{PerHour: 3.5, Currency: "USD"}
	return o
}()

// judgedScript is script with the Finished results judged and priced the
// way the engine does when objectives and prices are configured. Goodput
// is a plausible share of each level's throughput (the script has no
// per-request figures).
func judgedScript(n int, partial, finish bool, slo engine.SLO, cost engine.Cost) []engine.Event {
	evs := script(n, partial, finish)
	last := len(evs) - 1
	fin, ok := evs[last].(engine.Finished)
	if !ok {
		return evs
	}
	res := fin.Results
	levels := make([]engine.LevelResult, len(res.Levels))
	for i, l := range res.Levels {
		met, misses := slo.Check(l)
		l.SLOMet, l.SLOMisses = &met, misses
		share := 0.98
		switch {
		case l.Latency.P95 > slo.LatencyP95Ms && l.Latency.P50 <= slo.LatencyP95Ms:
			share = 0.6
		case l.Latency.P50 > slo.LatencyP95Ms:
			share = 0.05
		}
		l.GoodRequests = int64(float64(l.Succeeded) * share)
		l.GoodputRPS, l.GoodputTokPerS = l.RequestsPerS*share, l.OutputTokPerS*share
		l.CostPerRequest, l.CostPerMOutput, _ = levelCost(cost, &l)
		if met && l.Concurrency > res.SLOMaxConcurrency {
			res.SLOMaxConcurrency = l.Concurrency
		}
		levels[i] = l
		if l.Concurrency == slo.AtConcurrency {
			res.SLOVerdict = &engine.SLOVerdict{AtConcurrency: l.Concurrency, Met: met, Misses: misses}
		}
	}
	res.Levels = levels
	res.SLO, res.Cost = &slo, &cost
	evs[last] = engine.Finished{Results: res}
	return evs
}
