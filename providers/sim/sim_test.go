package sim

import (
	"context"
	"errors"
	"runtime"
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

func TestHostedRateLimit(t *testing.T) {
	clk := &frozenClock{now: time.Unix(1000, 0)}
	s := hostedNoDelay(t, clk)
	p := s.Profile()
	ctx := context.Background()
	var ok, limited int
	var last *engine.Failure
	var lastTr engine.Trace
	for i := range p.RPM + 5 {
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
	if ok != p.RPM || limited != 5 {
		t.Fatalf("ok %d limited %d, want %d and 5", ok, limited, p.RPM)
	}
	if last.RetryAfter <= 0 || last.RetryAfter > 200*time.Millisecond {
		t.Errorf("Retry-After %v, want about one request's refill (120 ms)", last.RetryAfter)
	}
	for _, h := range []string{"x-ratelimit-limit-requests", "x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
		"x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"} {
		if last.Headers[h] == "" {
			t.Errorf("missing header %s in %v", h, last.Headers)
		}
	}
	if last.Headers["x-ratelimit-remaining-requests"] != "0" {
		t.Errorf("remaining-requests = %q", last.Headers["x-ratelimit-remaining-requests"])
	}
	if RateLimitType(last) != "requests" {
		t.Errorf("type = %q, message %q", RateLimitType(last), last.Message)
	}
	t.Logf("429: %s", last.Message)
	// Do refuses the same way; after Retry-After the request is admitted.
	err := s.Do(ctx, engine.Request{ID: 9999, PromptTokens: 10, MaxTokens: 10}, &lastTr)
	if engine.Classify(err).RetryAfter <= 0 {
		t.Errorf("Do: %v", err)
	}
	clk.Advance(last.RetryAfter + time.Millisecond)
	st, err := s.Submit(ctx, engine.Request{ID: 10000, PromptTokens: 10, MaxTokens: 10})
	if err != nil {
		t.Fatalf("after Retry-After: %v", err)
	}
	if st.RateLimits()["x-ratelimit-limit-requests"] != "500" {
		t.Errorf("accepted request's headers: %v", st.RateLimits())
	}
	st.Cancel()
}

func TestHostedTokenLimit(t *testing.T) {
	clk := &frozenClock{now: time.Unix(1000, 0)}
	s := hostedNoDelay(t, clk)
	ctx := context.Background()
	// 200k TPM: requests of 1000 tokens pass 200 times, then the token
	// bucket (not the request bucket, 500) refuses.
	for i := range 200 {
		st, err := s.Submit(ctx, engine.Request{ID: uint64(i), PromptTokens: 500, MaxTokens: 500})
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		st.Cancel()
	}
	_, err := s.Submit(ctx, engine.Request{ID: 200, PromptTokens: 500, MaxTokens: 500})
	f := engine.Classify(err)
	if f.Status != 429 || RateLimitType(f) != "tokens" {
		t.Fatalf("got %v, want a tokens 429", err)
	}
	// 1000 tokens at 200000/min refill in 300 ms.
	if f.RetryAfter < 250*time.Millisecond || f.RetryAfter > 350*time.Millisecond {
		t.Errorf("Retry-After %v, want ~300ms", f.RetryAfter)
	}
	_, err = s.Submit(ctx, engine.Request{ID: 201, PromptTokens: 100000, MaxTokens: 150000})
	if f := engine.Classify(err); f.Status != 400 && f.Status != 429 {
		t.Errorf("oversized request: %v", err)
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
