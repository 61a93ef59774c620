package openai

import (
	"context"
	"errors"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/providers/sim"
	"github.com/kneepoint/kneepoint/providers/simserver"
)

// simServer serves the calibrated simulator over HTTP in-process.
func simServer(t *testing.T, opts ...simserver.Option) *httptest.Server {
	t.Helper()
	prof, err := sim.LookupProfile("h200-llama3.2-1b")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.New(prof, sim.WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(simserver.New(s, opts...))
	t.Cleanup(func() {
		srv.Close()
		s.Close()
	})
	return srv
}

// TestAgainstSimServer runs the provider against the simulator's HTTP face:
// the check passes, concurrent streams succeed with server-reported usage
// matching the chunks seen, in both streaming modes.
func TestAgainstSimServer(t *testing.T) {
	srv := simServer(t)
	for _, stream := range []bool{true, false} {
		p, err := New(WithBaseURL(srv.URL+"/v1"), WithModel("llama3.2-1b"), WithStream(stream), WithIgnoreEOS(true), WithMaxConns(8))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Check(context.Background()); err != nil {
			t.Fatalf("Check: %v", err)
		}
		_, checkConns := p.Conns() // the model listing's own connection
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				tr := &engine.Trace{}
				err := p.Do(context.Background(), engine.Request{ID: uint64(i), Seed: 3, PromptTokens: 64, MaxTokens: 16}, tr)
				if err != nil {
					t.Errorf("stream=%v: Do: %v", stream, err)
					return
				}
				n, est := tr.OutputTokens()
				if n != 16 || est {
					t.Errorf("stream=%v: tokens %d (estimated %v), want 16 from usage", stream, n, est)
				}
				if stream && (tr.Chunks() != 16 || len(tr.Gaps()) != 15) {
					t.Errorf("chunks %d, gaps %d; want 16, 15", tr.Chunks(), len(tr.Gaps()))
				}
				if tr.TTFT() <= 0 || tr.E2E() < tr.TTFT() {
					t.Errorf("TTFT %v, E2E %v", tr.TTFT(), tr.E2E())
				}
			})
		}
		wg.Wait()
		if _, dialed := p.Conns(); dialed-checkConns > 8 {
			t.Errorf("dialed %d connections for 8 concurrent requests", dialed-checkConns)
		}
		p.Close()
	}
}

// TestSimServerFaults injects each of the simulator server's faults at
// rate 1 and checks the provider's classification.
func TestSimServerFaults(t *testing.T) {
	tests := []struct {
		spec       string
		class      engine.ErrorClass // "" for success
		retryAfter bool
	}{
		{"429=1", engine.ClassRateLimited, true},
		{"429-no-retry-after=1", engine.ClassRateLimited, true}, // remaining-requests 0, reset 1s
		{"503=1", engine.ClassOverloaded, false},
		{"500=1", engine.ClassServer, false},
		{"400=1", engine.ClassClient, false},
		{"html=1", engine.ClassServer, false},
		{"reset-before=1", engine.ClassConnection, false},
		{"reset-during=1", engine.ClassStream, false},
		{"error-event=1", engine.ClassStream, false},
		{"malformed=1", engine.ClassStream, false},
		{"empty-200=1", engine.ClassStream, false},
		{"no-done=1", "", false}, // finish_reason and usage arrive; only [DONE] is missing
		{"slow-headers=1,slow-delay=5s", engine.ClassTimeout, false},
		{"hang=1", engine.ClassTimeout, false},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			faults, err := simserver.ParseFaults(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			srv := simServer(t, simserver.WithFaults(faults))
			// Only the timeout kinds need a short timeout; the others get
			// room for a loaded CI machine running the race detector.
			timeout := 5 * time.Second
			if tt.class == engine.ClassTimeout {
				timeout = 300 * time.Millisecond
			}
			p, err := New(WithBaseURL(srv.URL+"/v1"), WithModel("llama3.2-1b"), WithTimeout(timeout))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			err = p.Do(context.Background(), engine.Request{ID: 1, Seed: 1, PromptTokens: 32, MaxTokens: 8}, &engine.Trace{})
			if tt.class == "" {
				if err != nil {
					t.Fatalf("Do: %v", err)
				}
				return
			}
			var f *engine.Failure
			if !errors.As(err, &f) || f.Class != tt.class {
				t.Fatalf("Do = %v, want class %s", err, tt.class)
			}
			if (f.RetryAfter > 0) != tt.retryAfter {
				t.Errorf("RetryAfter = %v, want present: %v", f.RetryAfter, tt.retryAfter)
			}
		})
	}
}
