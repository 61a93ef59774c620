package providers_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/engine/report"
	"github.com/kneepoint/kneepoint/providers/openai"
	"github.com/kneepoint/kneepoint/providers/sim"
	"github.com/kneepoint/kneepoint/providers/simserver"
)

// End-to-end fault tests: a real engine sweep through the OpenAI provider
// against the simulator's HTTP face with faults injected. Where the
// provider's own tests check one request per fault, these check what the
// user sees: the sweep finishes, each failure is counted in its class,
// the server's message survives to the results, failed requests never
// reach latency or throughput, and nothing is left running afterwards.

// Per-request timeouts: short where the fault is a timeout (slow-headers
// holds its headers well past it, hang never answers), generous elsewhere
// so that a starved CI machine does not turn a slow answer into a timeout.
const (
	shortTimeout = time.Second
	longTimeout  = 10 * time.Second
)

// finishBound is how long one short sweep may take before the test calls
// it stuck: two 1.5 s levels plus grace, with room for -race on 2 cores.
const finishBound = 20 * time.Second

// faultCase is one fault spec and how kneepoint must count it.
type faultCase struct {
	name  string
	spec  string
	noSSE bool              // non-streaming requests
	class engine.ErrorClass // "" when the requests must succeed
	msg   string            // expected in the level's and the snapshot's last error
}

// faultCases: every kind at rate 1, streaming, plus the body faults again
// without streaming, where they take another shape (see
// simserver.wholeFault).
//
// Choices worth stating:
//   - html is nginx's 502 page: a 5xx, so server_error, with the page's
//     title kept as the message.
//   - reset-during resets the connection after a 200 and some content: a
//     truncated stream (stream), not a connection failure; connection is
//     for requests that never got a response (reset-before).
//   - no-done on a stream sends finish_reason and usage and then closes
//     without [DONE]: the output is complete, so the request succeeds, as
//     it must against llama.cpp and proxies that omit [DONE]. A stream that
//     really stops early (reset-during, or no-done without streaming,
//     where half the promised body arrives) is a stream failure.
var faultCases = []faultCase{
	{"429", "429=1", false, engine.ClassRateLimited, "Rate limit reached"},
	{"429-no-retry-after", "429-no-retry-after=1", false, engine.ClassRateLimited, "Rate limit reached"},
	{"503", "503=1", false, engine.ClassOverloaded, "currently overloaded"},
	{"500", "500=1", false, engine.ClassServer, "had an error while processing"},
	{"400", "400=1", false, engine.ClassClient, "Invalid request."},
	{"html", "html=1", false, engine.ClassServer, "502 Bad Gateway"},
	{"reset-before", "reset-before=1", false, engine.ClassConnection, "cannot reach"},
	{"reset-during", "reset-during=1", false, engine.ClassStream, "stream broken after"},
	{"error-event", "error-event=1", false, engine.ClassStream, "had an error while processing"},
	{"malformed", "malformed=1", false, engine.ClassStream, "malformed chunk"},
	{"empty-200", "empty-200=1", false, engine.ClassStream, "empty response body"},
	{"no-done", "no-done=1", false, "", ""},
	{"slow-headers", "slow-headers=1,slow-delay=3s", false, engine.ClassTimeout, timeoutMsg},
	{"hang", "hang=1", false, engine.ClassTimeout, timeoutMsg},
	{"reset-during/no-stream", "reset-during=1", true, engine.ClassStream, "while reading the response body"},
	{"error-event/no-stream", "error-event=1", true, engine.ClassStream, "had an error while processing"},
	{"malformed/no-stream", "malformed=1", true, engine.ClassStream, "malformed response body"},
	{"empty-200/no-stream", "empty-200=1", true, engine.ClassStream, "empty response body"},
	{"no-done/no-stream", "no-done=1", true, engine.ClassStream, "while reading the response body"},
}

// timeoutMsg is how the provider words its per-request timeout.
const timeoutMsg = "no complete response within 1s"

// mixedSpec injects most kinds at once; the rest of the requests succeed.
const mixedSpec = "429=0.04,429-no-retry-after=0.03,503=0.04,500=0.04,400=0.04,html=0.04," +
	"reset-before=0.04,reset-during=0.05,error-event=0.05,malformed=0.05,empty-200=0.04,no-done=0.05,hang=0.02,seed=7"

// fixture is one simulator server with connection accounting and the
// provider pointed at it.
type fixture struct {
	sim      *sim.Sim
	srv      *httptest.Server
	p        *openai.Provider
	srvConns atomic.Int64 // connections the server holds open
}

func newFixture(t *testing.T, spec string, stream bool, timeout time.Duration) *fixture {
	t.Helper()
	faults, err := simserver.ParseFaults(spec)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := sim.LookupProfile("h200-llama3.2-1b")
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{}
	if fx.sim, err = sim.New(prof, sim.WithSeed(1)); err != nil {
		t.Fatal(err)
	}
	fx.srv = httptest.NewUnstartedServer(simserver.New(fx.sim, simserver.WithFaults(faults)))
	fx.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			fx.srvConns.Add(1)
		case http.StateClosed, http.StateHijacked: // a hijacked conn is the handler's, which closes it
			fx.srvConns.Add(-1)
		}
	}
	fx.srv.Start()
	fx.p, err = openai.New(openai.WithBaseURL(fx.srv.URL+"/v1"), openai.WithModel(prof.Model),
		openai.WithStream(stream), openai.WithIgnoreEOS(true), openai.WithTimeout(timeout), openai.WithMaxConns(8))
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// close releases everything and waits until both ends hold no
// connection: the provider's idle pool is closed, the server shut down.
func (fx *fixture) close(t *testing.T) {
	t.Helper()
	fx.p.Close()
	fx.srv.Close()
	fx.sim.Close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && (fx.p.OpenConns() != 0 || fx.srvConns.Load() != 0) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := fx.p.OpenConns(); n != 0 {
		t.Errorf("provider holds %d connections after Close", n)
	}
	if n := fx.srvConns.Load(); n != 0 {
		t.Errorf("server holds %d connections after Close", n)
	}
}

// sweepOutcome is what a sweep produced.
type sweepOutcome struct {
	res       engine.Results
	lastError string // the last snapshot's LastError: what the dashboard shows
	took      time.Duration
}

// sweep runs two short levels and drains the events. It reports an error
// if the run does not finish and close its channel within finishBound. It
// runs on its own goroutine, so it does not touch testing.T.
func sweep(p engine.Provider, levels ...int) (sweepOutcome, error) {
	plan := engine.Plan{
		Levels: levels, Duration: 1500 * time.Millisecond, Grace: 200 * time.Millisecond,
		RetryBase: 50 * time.Millisecond, RetryAfterCap: 2 * time.Second,
		// A pause between a worker's requests keeps twenty sweeps from
		// taking every core of a CI machine (go test runs packages in
		// parallel, and other packages have timing tests): a closed loop
		// of instantly failing requests would otherwise spin flat out.
		ThinkTime: 100 * time.Millisecond,
	}
	run := engine.New(p, plan, engine.WithWorkload(engine.Workload{PromptTokens: 32, MaxTokens: 16, Stream: true}))
	start := time.Now()
	ch := run.Start(context.Background())
	timeout := time.NewTimer(finishBound)
	defer timeout.Stop()
	var out sweepOutcome
	finished := false
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				out.took = time.Since(start)
				if !finished {
					return out, errors.New("event channel closed without a Finished event")
				}
				return out, nil
			}
			switch v := e.(type) {
			case engine.Snapshot:
				if v.LastError != "" {
					out.lastError = v.LastError
				}
			case engine.Finished:
				out.res, finished = v.Results, true
			}
		case <-timeout.C:
			run.Stop("test timeout")
			go func() {
				for range ch {
				}
			}()
			return out, fmt.Errorf("sweep did not finish within %s", finishBound)
		}
	}
}

// tally sums a run's levels.
type tally struct {
	sent, requests, ok, failed, latency, ttft, itl, tokens int64
	errors                                                 map[engine.ErrorClass]int64
}

func sum(levels []engine.LevelResult) tally {
	t := tally{errors: map[engine.ErrorClass]int64{}}
	for _, l := range levels {
		t.sent += l.Sent
		t.requests += l.Requests
		t.ok += l.Succeeded
		t.failed += l.Failed
		t.latency += l.Latency.Count
		t.ttft += l.TTFT.Count
		t.itl += l.ITL.Count
		t.tokens += l.OutputTokens
		for c, n := range l.Errors {
			t.errors[engine.ErrorClass(c)] += n
		}
	}
	return t
}

func (t tally) classes() string {
	var parts []string
	for c, n := range t.errors {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", c, n))
		}
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// TestFaultSweeps runs a sweep against every fault kind at rate 1 and one
// with mixed rates, all at once (each sweep mostly waits on timers), then
// checks each outcome and that no goroutine or connection outlives them.
// It logs the table of kind, class and counts.
func TestFaultSweeps(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of sweeps")
	}
	baseline := runtime.NumGoroutine()

	cases := append(faultCases, faultCase{name: "mixed", spec: mixedSpec})
	fxs := make([]*fixture, len(cases))
	outs := make([]sweepOutcome, len(cases))
	errs := make([]error, len(cases))
	for i, tt := range cases {
		timeout := longTimeout
		switch {
		case tt.class == engine.ClassTimeout:
			timeout = shortTimeout
		case tt.name == "mixed":
			timeout = 2 * time.Second // its hung requests time out within the window
		}
		fxs[i] = newFixture(t, tt.spec, !tt.noSSE, timeout)
	}
	var wg sync.WaitGroup
	for i, tt := range cases {
		levels := []int{1, 2}
		if tt.name == "mixed" {
			levels = []int{4, 8}
		}
		wg.Go(func() { outs[i], errs[i] = sweep(fxs[i].p, levels...) })
	}
	wg.Wait()

	var table strings.Builder
	fmt.Fprintf(&table, "%-22s %-14s %-44s %-24s %s\n", "fault", "class", "counts (both levels' windows)", "run", "last error (dashboard)")
	for i, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			fxs[i].close(t)
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			out := outs[i]
			res, tl := out.res, sum(out.res.Levels)
			expect := orDash(string(tt.class))
			if tt.name == "mixed" {
				expect = "(by kind)"
			}
			fmt.Fprintf(&table, "%-22s %-14s %-44s %-24s %.80s\n", tt.name, expect,
				fmt.Sprintf("sent %d, ok %d, failed %d: %s", tl.sent, tl.ok, tl.failed, tl.classes()),
				fmt.Sprintf("finished in %.1fs", out.took.Seconds()), out.lastError)
			checkFinished(t, res)
			switch {
			case tt.name == "mixed":
				checkMixed(t, res, tl)
				return
			case tt.class == "":
				checkSucceeded(t, tl)
				return
			}
			checkAllFailed(t, res, tl, tt.class)
			for _, l := range res.Levels {
				if l.Failed > 0 && !containsAny(l.LastError, tt.msg) {
					t.Errorf("c=%d: last error %q lacks the message %q", l.Concurrency, l.LastError, tt.msg)
				}
			}
			if !strings.HasPrefix(out.lastError, string(tt.class)+": ") || !containsAny(out.lastError, tt.msg) {
				t.Errorf("dashboard's last error %q: want class %s and %q", out.lastError, tt.class, tt.msg)
			}
		})
	}
	t.Logf("fault table:\n%s", table.String())

	// Leaks: every sweep above is over and its server and provider closed;
	// the goroutine count must come back to where it started.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > baseline && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > baseline {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the fault sweeps, %d before:\n%s", n, baseline, buf[:runtime.Stack(buf, true)])
	}
}

// containsAny reports whether s contains one of the |-separated wants.
func containsAny(s, wants string) bool {
	for _, w := range strings.Split(wants, "|") {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func orDash(s string) string {
	if s == "" {
		return "success"
	}
	return s
}

// checkFinished: the run ran its whole plan, not cut short.
func checkFinished(t *testing.T, res engine.Results) {
	t.Helper()
	if res.Schema != engine.SchemaV1 || res.Partial || len(res.Levels) != len(res.Plan.Levels) {
		t.Errorf("results: schema %q, partial %v (%s), %d of %d levels",
			res.Schema, res.Partial, res.PartialReason, len(res.Levels), len(res.Plan.Levels))
	}
}

func checkSucceeded(t *testing.T, tl tally) {
	t.Helper()
	if tl.failed != 0 || tl.ok == 0 || tl.latency != tl.ok || tl.tokens != 16*tl.ok {
		t.Errorf("want every request to succeed: %+v", tl)
	}
}

// checkAllFailed: every completed request failed, in the one expected
// class, nothing reached latency or throughput, and the results say so.
func checkAllFailed(t *testing.T, res engine.Results, tl tally, class engine.ErrorClass) {
	t.Helper()
	if tl.failed == 0 || tl.ok != 0 || tl.errors[class] != tl.failed || tl.requests != tl.failed {
		t.Errorf("want every completed request counted as %s: %+v", class, tl)
	}
	if tl.latency != 0 || tl.ttft != 0 || tl.itl != 0 || tl.tokens != 0 {
		t.Errorf("failed requests reached latency or throughput: %+v", tl)
	}
	for _, l := range res.Levels {
		if l.OutputTokPerS != 0 || l.RequestsPerS != 0 || l.TPOT.Count != 0 {
			t.Errorf("c=%d: %.1f tok/s, %.1f req/s, %d TPOT samples from failed requests",
				l.Concurrency, l.OutputTokPerS, l.RequestsPerS, l.TPOT.Count)
		}
	}
	if res.Knee != nil || !strings.Contains(res.KneeNote, "every request failed") {
		t.Errorf("knee %+v, note %q: want no knee and a plain every-request-failed note", res.Knee, res.KneeNote)
	}
	var b bytes.Buffer
	if err := report.Table(res)(&b); err != nil || !strings.Contains(b.String(), "every request failed") {
		t.Errorf("headless table (err %v) does not say every request failed:\n%s", err, b.String())
	}
}

// mixedClasses is every class the mixed spec may produce.
var mixedClasses = map[engine.ErrorClass]bool{
	engine.ClassRateLimited: true, engine.ClassOverloaded: true, engine.ClassServer: true,
	engine.ClassClient: true, engine.ClassConnection: true, engine.ClassStream: true, engine.ClassTimeout: true,
}

// checkMixed: with some requests failing, exactly the successes make the
// latency, TTFT and token figures (ignore_eos: 16 tokens each), and the
// failures add up by class.
func checkMixed(t *testing.T, res engine.Results, tl tally) {
	t.Helper()
	var classed int64
	for c, n := range tl.errors {
		classed += n
		if !mixedClasses[c] {
			t.Errorf("%d requests in class %s, which no injected fault should produce", n, c)
		}
	}
	if tl.ok == 0 || tl.failed == 0 || classed != tl.failed || tl.ok+tl.failed != tl.requests {
		t.Errorf("mixed run: %+v (classed %d)", tl, classed)
	}
	if len(tl.errors) < 2 {
		t.Errorf("mixed run saw only %s", tl.classes())
	}
	for _, l := range res.Levels {
		if l.Latency.Count != l.Succeeded || l.TTFT.Count != l.Succeeded || l.OutputTokens != 16*l.Succeeded {
			t.Errorf("c=%d: %d succeeded but %d latency, %d TTFT samples and %d tokens (want %d)",
				l.Concurrency, l.Succeeded, l.Latency.Count, l.TTFT.Count, l.OutputTokens, 16*l.Succeeded)
		}
		if l.Failed > 0 && l.LastError == "" {
			t.Errorf("c=%d: %d failures but no last error", l.Concurrency, l.Failed)
		}
	}
}
