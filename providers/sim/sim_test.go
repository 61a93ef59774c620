package sim

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

func newSim(t *testing.T, name string, opts ...Option) *Sim {
	t.Helper()
	p, err := LookupProfile(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestLookupProfile(t *testing.T) {
	names := Profiles()
	if names[0] != DefaultProfile || len(names) < 4 {
		t.Fatalf("Profiles() = %v", names)
	}
	if p, err := LookupProfile(""); err != nil || p.Name != DefaultProfile {
		t.Errorf("LookupProfile(\"\") = %v, %v", p.Name, err)
	}
	if _, err := LookupProfile("nope"); err == nil {
		t.Error("unknown profile accepted")
	}
	bad, _ := LookupProfile(DefaultProfile)
	bad.MaxNumSeqs = 0
	if _, err := New(bad); err == nil {
		t.Error("invalid profile accepted")
	}
}

// TestDoRealTime runs concurrent requests through the real-time driver on
// the fast profile and checks every trace is complete and consistent.
func TestDoRealTime(t *testing.T) {
	s := newSim(t, "soak-fast")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tr engine.Trace
			err := s.Do(context.Background(), engine.Request{ID: uint64(i), PromptTokens: 50, MaxTokens: 20}, &tr)
			if err != nil {
				errs <- err
				return
			}
			n, est := tr.OutputTokens()
			switch {
			case est || n < 10 || n > 20 || tr.Chunks() != n:
				errs <- errors.New("token counts do not match usage")
			case tr.TTFT() <= 0 || tr.E2E() < tr.TTFT():
				errs <- errors.New("non-positive or out-of-order timings")
			case len(tr.Gaps()) != n-1:
				errs <- errors.New("gap count")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := s.Stats()
	if st.Finished != 16 || st.Running != 0 || st.Waiting != 0 || st.KVUsage != 0 {
		t.Errorf("stats after the run: %+v", st)
	}
}

// TestDoVirtualClock checks the real driver against the virtual timeline:
// one request alone on the default profile takes one prefill step plus
// MaxTokens-1 decode steps of ~4.7 ms.
func TestDoVirtualClock(t *testing.T) {
	clk := NewVirtualClock(time.Unix(1000, 0))
	s := newSim(t, DefaultProfile, WithClock(clk))
	var tr engine.Trace
	if err := s.Do(context.Background(), engine.Request{ID: 1, Seed: 1, PromptTokens: 150, MaxTokens: 64}, &tr); err != nil {
		t.Fatal(err)
	}
	n, _ := tr.OutputTokens()
	tpot, _ := tr.TPOT()
	t.Logf("%d tokens, TTFT %v, TPOT %v", n, tr.TTFT(), tpot)
	if tr.TTFT() < 6*time.Millisecond || tr.TTFT() > 9*time.Millisecond {
		t.Errorf("TTFT %v, want ~7.3 ms (prefill of 150 tokens)", tr.TTFT())
	}
	if tpot < 4400*time.Microsecond || tpot > 5000*time.Microsecond {
		t.Errorf("TPOT %v, want ~4.7 ms (B=1 decode)", tpot)
	}
}

func TestDoCancel(t *testing.T) {
	s := newSim(t, DefaultProfile)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var tr engine.Trace
	go func() { done <- s.Do(ctx, engine.Request{ID: 1, PromptTokens: 100, MaxTokens: 4000}, &tr) }()
	time.Sleep(30 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Do did not return promptly after cancel")
	}
	if st := s.Stats(); st.Running != 0 || st.KVUsage != 0 {
		t.Errorf("cancelled request still holds the scheduler: %+v", st)
	}
}

// TestIdleDoesNotSpin: with nothing to do the driver blocks.
func TestIdleDoesNotSpin(t *testing.T) {
	s := newSim(t, "soak-fast")
	var tr engine.Trace
	if err := s.Do(context.Background(), engine.Request{ID: 1, PromptTokens: 10, MaxTokens: 5}, &tr); err != nil {
		t.Fatal(err)
	}
	before := s.Stats().Steps
	time.Sleep(50 * time.Millisecond)
	if after := s.Stats().Steps; after != before {
		t.Errorf("idle simulator ran %d steps", after-before)
	}
}

func TestCloseFailsOutstanding(t *testing.T) {
	p, _ := LookupProfile(DefaultProfile)
	s, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	base := runtime.NumGoroutine()
	done := make(chan error, 1)
	go func() {
		var tr engine.Trace
		done <- s.Do(context.Background(), engine.Request{ID: 1, PromptTokens: 100, MaxTokens: 4000}, &tr)
	}()
	time.Sleep(20 * time.Millisecond)
	s.Close()
	s.Close()
	select {
	case err := <-done:
		if f := engine.Classify(err); f == nil || f.Class != engine.ClassConnection {
			t.Errorf("err = %v, want a connection failure", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Do did not return after Close")
	}
	var tr engine.Trace
	if err := s.Do(context.Background(), engine.Request{ID: 2, PromptTokens: 1, MaxTokens: 1}, &tr); err == nil {
		t.Error("Do on a closed simulator succeeded")
	}
	time.Sleep(10 * time.Millisecond)
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("goroutines: %d after Close, %d before the request", n, base)
	}
}

// TestHostedRateLimit: the hosted-api profile refuses requests past its
// RPM bucket with an OpenAI-style 429 and recovers after Retry-After.
// frozenClock never lets a step end (its sleeps block until stop), so the
// scheduler cannot move time while a test examines the gateway.
type frozenClock struct {
	mu  sync.Mutex
	now time.Time
}

func (f *frozenClock) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *frozenClock) SleepUntil(_ time.Time, stop <-chan struct{}) bool {
	<-stop
	return false
}

func (f *frozenClock) Advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	f.mu.Unlock()
}

// hostedNoDelay is the hosted-api profile without its gateway delay, which
// would otherwise advance a virtual clock (and refill the buckets) on
// every request.
func hostedNoDelay(t *testing.T, clk Clock) *Sim {
	t.Helper()
	p, _ := LookupProfile("hosted-api")
	p.FrontendDelay = 0
	s, err := New(p, WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestHostedRateLimit: the hosted-api profile enforces 500 RPM over 1 s
// (a bucket of 8.33 requests refilled at 8.33/s) and refuses the excess
// with an OpenAI-style 429; the request is admitted after Retry-After.
func TestHostedRateLimit(t *testing.T) {
	clk := &frozenClock{now: time.Unix(1000, 0)}
	s := hostedNoDelay(t, clk)
	ctx := context.Background()
	var ok, limited int
	var last *engine.Failure
	for i := range 13 {
		st, err := s.Submit(ctx, engine.Request{ID: uint64(i), PromptTokens: 10, MaxTokens: 10})
		if err != nil {
			f := engine.Classify(err)
			if f.Class != engine.ClassRateLimited || f.Status != 429 {
				t.Fatalf("request %d: %v", i, err)
			}
			limited++
			last = f
			continue
		}
		st.Cancel()
		ok++
	}
	if ok != 8 || limited != 5 {
		t.Fatalf("ok %d limited %d, want 8 and 5", ok, limited)
	}
	// 0.33 requests left; one needs 0.67 more at 8.33/s: 80 ms.
	if last.RetryAfter < 75*time.Millisecond || last.RetryAfter > 85*time.Millisecond {
		t.Errorf("Retry-After %v, want 80ms", last.RetryAfter)
	}
	for _, h := range []string{"x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
		"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"} {
		if last.Headers[h] == "" {
			t.Errorf("missing header %s in %v", h, last.Headers)
		}
	}
	if last.Headers["x-ratelimit-remaining-requests"] != "0" || last.Headers["x-ratelimit-limit-requests"] != "500" {
		t.Errorf("headers %v", last.Headers)
	}
	if RateLimitType(last) != "requests" || !strings.Contains(last.Message, "Please try again in 80ms.") {
		t.Errorf("type %q, message %q", RateLimitType(last), last.Message)
	}
	t.Logf("429: %s", last.Message)
	var tr engine.Trace
	err := s.Do(ctx, engine.Request{ID: 99, PromptTokens: 10, MaxTokens: 10}, &tr)
	if f := engine.Classify(err); f.Status != 429 || f.RetryAfter <= 0 {
		t.Errorf("Do: %v", err)
	}
	clk.Advance(last.RetryAfter + time.Millisecond)
	st, err := s.Submit(ctx, engine.Request{ID: 100, PromptTokens: 10, MaxTokens: 10})
	if err != nil {
		t.Fatalf("after Retry-After: %v", err)
	}
	if st.RateLimits()["x-ratelimit-limit-requests"] != "500" {
		t.Errorf("accepted request's headers: %v", st.RateLimits())
	}
	st.Cancel()
}

// TestHostedTokenLimit: 200k TPM over 1 s is a 3,333-token bucket; a
// request larger than the bucket (but within TPM) passes when the bucket
// is full and leaves it in debt; one larger than TPM can never pass
// (429 without Retry-After, OpenAI's "Request too large").
func TestHostedTokenLimit(t *testing.T) {
	clk := &frozenClock{now: time.Unix(1000, 0)}
	s := hostedNoDelay(t, clk)
	ctx := context.Background()
	submit := func(id uint64, prompt, maxTok int) *engine.Failure {
		st, err := s.Submit(ctx, engine.Request{ID: id, PromptTokens: prompt, MaxTokens: maxTok})
		if err != nil {
			return engine.Classify(err)
		}
		st.Cancel()
		return nil
	}
	for i := range 3 {
		if f := submit(uint64(i), 500, 500); f != nil {
			t.Fatalf("request %d: %v", i, f)
		}
	}
	f := submit(3, 500, 500)
	if f == nil || f.Status != 429 || RateLimitType(f) != "tokens" {
		t.Fatalf("got %v, want a tokens 429", f)
	}
	// 333 tokens left, 1000 needed at 3333/s: 200 ms.
	if f.RetryAfter < 195*time.Millisecond || f.RetryAfter > 205*time.Millisecond {
		t.Errorf("Retry-After %v, want ~200ms", f.RetryAfter)
	}
	clk.Advance(2 * time.Second) // full again
	if f := submit(4, 4000, 1000); f != nil {
		t.Errorf("request larger than the bucket, bucket full: %v", f)
	}
	if f := submit(5, 10, 10); f == nil || f.RetryAfter < 500*time.Millisecond {
		t.Errorf("after a debt: %v", f)
	}
	// Larger than the whole TPM (needs a tiny limit: the context is 8k).
	l := newLimiter(Profile{Model: "m", TPM: 1000}, time.Unix(0, 0))
	if _, f := l.take(time.Unix(0, 0), 2000); f == nil || f.Status != 429 || f.RetryAfter != 0 || !strings.Contains(f.Message, "Request too large") {
		t.Errorf("request over TPM: %v", f)
	}
}

func TestStreamTokens(t *testing.T) {
	s := newSim(t, "soak-fast")
	st, err := s.Submit(context.Background(), engine.Request{ID: 1, PromptTokens: 20, MaxTokens: 30})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for {
		select {
		case <-st.Ready():
			n := st.Tokens()
			if n < seen {
				t.Fatalf("token count went back: %d after %d", n, seen)
			}
			seen = n
			continue
		case <-st.Done():
		}
		break
	}
	n, finish, err := st.Result()
	if err != nil || n != st.Tokens() || n < 15 || (finish != "length" && finish != "stop") {
		t.Errorf("result %d %q %v (tokens %d)", n, finish, err, st.Tokens())
	}
	if st.PromptTokens() != 20 || st.RateLimits() != nil {
		t.Errorf("prompt %d limits %v", st.PromptTokens(), st.RateLimits())
	}
	st.Cancel() // after the end: harmless
}

func TestDescribe(t *testing.T) {
	s := newSim(t, "l4-llama3-8b")
	d := s.Describe()
	if d.Provider != "sim" || d.Profile != "l4-llama3-8b" || d.Model == "" {
		t.Errorf("Describe() = %+v", d)
	}
}
