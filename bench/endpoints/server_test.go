package main

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/providers/openai"
)

// The endpoints must be what kneepoint's own client accepts as complete,
// successful completions, or the benchmark would measure failures.
func TestEndpointsServeValidCompletions(t *testing.T) {
	tests := []struct {
		name   string
		cfg    settings
		stream bool
		chunks int
		minTTF time.Duration
	}{
		{"trivial", settings{mode: modeTrivial}, false, 1, 0},
		{"sse at once", settings{mode: modeSSE, tokens: 64}, true, 64, 0},
		{"sse paced", settings{mode: modeSSE, tokens: 3, interval: 5 * time.Millisecond}, true, 3, 0},
		{"delay", settings{mode: modeDelay, tokens: 4, firstByte: 30 * time.Millisecond}, true, 4, 30 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(tt.cfg)
			srv := httptest.NewUnstartedServer(s.routes())
			srv.Listener = s.listen(srv.Listener, srv.Config)
			srv.Start()
			defer srv.Close()
			p, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithModel("bench"), openai.WithStream(tt.stream))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if err := p.Check(context.Background()); err != nil {
				t.Fatalf("Check: %v", err)
			}
			tr := &engine.Trace{}
			if err := p.Do(context.Background(), engine.Request{ID: 1, PromptTokens: 10, MaxTokens: 16}, tr); err != nil {
				t.Fatalf("Do: %v", err)
			}
			if tr.Chunks() != tt.chunks {
				t.Errorf("%d token chunks, want %d", tr.Chunks(), tt.chunks)
			}
			if n, est := tr.OutputTokens(); est || (tt.stream && n != tt.cfg.tokens) {
				t.Errorf("output tokens %d (estimated %v), want %d from usage", n, est, tt.cfg.tokens)
			}
			if tr.TTFT() < tt.minTTF {
				t.Errorf("TTFT %v, want at least the scripted %v", tr.TTFT(), tt.minTTF)
			}
			if got := s.requests.Load(); got != 1 {
				t.Errorf("requests counted %d, want 1", got)
			}
		})
	}
}

// The precise waiter runs each callback at (not before) its deadline, in
// any arrival order, and returns after it ran.
func TestPreciseWaiter(t *testing.T) {
	w := newWaiter()
	start := time.Now()
	delays := []time.Duration{20, 5, 10, 0, 15}
	done := make(chan time.Duration, len(delays))
	for _, d := range delays {
		go func() {
			at := start.Add(d * time.Millisecond)
			var late time.Duration
			w.at(at, func() { late = time.Since(at) })
			done <- late
		}()
	}
	for range delays {
		if late := <-done; late < 0 || late > 50*time.Millisecond {
			t.Errorf("released %v after its deadline", late)
		}
	}
}
