package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

const okStream = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"

func TestTimeoutsAndCancel(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // lets the server notice the client leaving
		w.Header().Set("Content-Type", "text/event-stream")
		if r.URL.Query().Get("case") == "midstream" {
			io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
			w.(http.Flusher).Flush()
		}
		select { // hang until the client gives up (or the test ends)
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()

	tests := []struct {
		name    string
		cse     string
		timeout time.Duration
		cancel  bool
		class   engine.ErrorClass
		msg     string
	}{
		{"no headers within timeout", "", 100 * time.Millisecond, false, engine.ClassTimeout, "within 100ms"},
		{"stalls mid-stream", "midstream", 100 * time.Millisecond, false, engine.ClassTimeout, "after 1 output chunks"},
		{"run canceled", "", time.Minute, true, engine.ClassCanceled, "canceled"},
		{"run canceled mid-stream", "midstream", time.Minute, true, engine.ClassCanceled, "canceled after 1 output chunks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newTestProvider(t, srv, WithTimeout(tt.timeout), WithBaseURL(srv.URL+"/v1?case="+tt.cse))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				time.AfterFunc(100*time.Millisecond, cancel)
			}
			start := time.Now()
			err := p.Do(ctx, engine.Request{ID: 1, PromptTokens: 8, MaxTokens: 8}, &engine.Trace{})
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("Do took %v to give up", d)
			}
			var f *engine.Failure
			if !errors.As(err, &f) || f.Class != tt.class || !strings.Contains(f.Message, tt.msg) {
				t.Fatalf("Do = %v, want %s containing %q", err, tt.class, tt.msg)
			}
		})
	}
}

func TestConnectionFailure(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	p := newTestProvider(t, dead)
	_, err := doOne(t, p)
	var f *engine.Failure
	if !errors.As(err, &f) || f.Class != engine.ClassConnection || !strings.Contains(f.Message, "connection refused") {
		t.Fatalf("Do = %v, want a connection failure", err)
	}
}

// TestPoolHoldsConcurrency checks the transport keeps one warm connection
// per in-flight request: a second wave at the same concurrency dials
// nothing new (go-openai's default client would redial all but 2).
func TestPoolHoldsConcurrency(t *testing.T) {
	const n = 16
	var mu sync.Mutex
	inFlight, peak := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(30 * time.Millisecond) // long enough for all n to overlap
		mu.Lock()
		inFlight--
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, okStream)
	}))
	defer srv.Close()
	p := newTestProvider(t, srv, WithMaxConns(n))
	wave := func() {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				if err := p.Do(context.Background(), engine.Request{ID: uint64(i), PromptTokens: 4, MaxTokens: 4}, &engine.Trace{}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	wave()
	open1, dialed1 := p.Conns()
	wave()
	open2, dialed2 := p.Conns()
	if dialed1 != n || dialed2 != n {
		t.Errorf("dialed %d then %d connections, want %d both times (reuse)", dialed1, dialed2, n)
	}
	if open1 != n || open2 != n {
		t.Errorf("open = %d, %d; want %d", open1, open2, n)
	}
	mu.Lock() // the lean client's reads are no happens-before edge for -race
	if peak != n {
		t.Errorf("server saw peak concurrency %d, want %d", peak, n)
	}
	mu.Unlock()
	p.Close()
	if open, _ := p.Conns(); open != 0 {
		t.Errorf("open after Close = %d", open)
	}
}

// TestHTTP2Cleartext checks WithHTTP2 speaks h2c to an http:// server that
// offers it, and that requests beyond one connection's stream limit are not
// queued behind it.
func TestHTTP2Cleartext(t *testing.T) {
	var mu sync.Mutex
	protos := map[string]int{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		protos[r.Proto]++
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, okStream)
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: 4}
	srv.Start()
	defer srv.Close()
	p := newTestProvider(t, srv, WithHTTP2(true), WithMaxConns(16))
	start := time.Now()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if err := p.Do(context.Background(), engine.Request{ID: uint64(i), PromptTokens: 4, MaxTokens: 4}, &engine.Trace{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if protos["HTTP/2.0"] != 16 {
		t.Errorf("protocols = %v, want 16 HTTP/2.0", protos)
	}
	// 16 requests, 4 streams per connection: queueing on one connection
	// would take 4 rounds of 20 ms.
	if _, dialed := p.Conns(); dialed < 4 {
		t.Errorf("dialed %d connections in %v; the stream limit throttled the test", dialed, time.Since(start))
	}
}
