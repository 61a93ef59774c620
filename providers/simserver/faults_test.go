package simserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/providers/sim"
)

func TestParseFaults(t *testing.T) {
	tests := []struct {
		spec    string
		wantErr string // substring; "" for success
		check   func(Faults) bool
	}{
		{"", "", func(f Faults) bool { return f.String() == "" && f.SlowHeaders == DefaultSlowHeaders }},
		{"429=0.05,429-no-retry-after=0.02,503=0.02,500=0.01,400=0.01,html=0.01,reset-before=0.01,reset-during=0.01,error-event=0.01,malformed=0.01,empty-200=0.01,no-done=0.01,slow-headers=0.01,hang=0.01", "",
			func(f Faults) bool {
				return f.Rate("429") == 0.05 && f.Rate("hang") == 0.01 && len(strings.Split(f.String(), ",")) == 14
			}},
		{" 503 = 0.5 , seed=7, slow-delay=2s ", "", func(f Faults) bool { return f.Rate("503") == 0.5 && f.Seed == 7 && f.SlowHeaders == 2*time.Second }},
		{"429=0.5,429=0.2", "", func(f Faults) bool { return f.Rate("429") == 0.2 }},
		{"teapot=0.1", `unknown kind "teapot"`, nil},
		{"429", `"429": want kind=rate`, nil},
		{"503=lots", `503: rate "lots"`, nil},
		{"503=1.5", `503: rate "1.5"`, nil},
		{"503=-0.1", `503: rate "-0.1"`, nil},
		{"503=0.7,500=0.6", "add up to 1.3", nil},
		{"seed=x", `seed "x"`, nil},
		{"slow-delay=soon", `slow-delay "soon"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			f, err := ParseFaults(tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("err = %v, want it to mention %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(f) {
				t.Errorf("parsed %+v (%s)", f, f)
			}
		})
	}
}

// TestFaultDrawRates: kinds are drawn at their rates, reproducibly.
func TestFaultDrawRates(t *testing.T) {
	f, err := ParseFaults("503=0.2,hang=0.1,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[faultKind]int{}
	for no := uint64(1); no <= 20000; no++ {
		counts[f.pick(no)]++
	}
	if c := counts[fault503]; c < 3700 || c > 4300 {
		t.Errorf("503 drawn %d/20000, want ~4000", c)
	}
	if c := counts[faultHang]; c < 1700 || c > 2300 {
		t.Errorf("hang drawn %d/20000, want ~2000", c)
	}
	g, _ := ParseFaults("503=0.2,hang=0.1,seed=3")
	for no := uint64(1); no <= 100; no++ {
		if f.pick(no) != g.pick(no) {
			t.Fatal("draws not reproducible")
		}
	}
}

// faultServer serves the soak profile with one fault kind at rate 1 and
// counts handlers still running.
func faultServer(t *testing.T, spec string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	f, err := ParseFaults(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := sim.LookupProfile("soak-fast")
	s, err := sim.New(p)
	if err != nil {
		t.Fatal(err)
	}
	h := New(s, WithFaults(f))
	active := &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		active.Add(1)
		defer active.Add(-1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		s.Close()
	})
	return srv, active
}

const faultStream = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":8,"stream":true,"stream_options":{"include_usage":true}}`
const faultWhole = `{"messages":[{"role":"user","content":"hi"}],"max_tokens":8}`

// outcome is what a client saw.
type outcome struct {
	status  int
	header  http.Header
	body    string
	reqErr  error // error before a response
	readErr error // error reading the body
}

func send(url, body string, timeout time.Duration) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/chat/completions", strings.NewReader(body))
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return outcome{reqErr: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return outcome{status: resp.StatusCode, header: resp.Header, body: string(b), readErr: err}
}

func TestFaults(t *testing.T) {
	errorType := func(o outcome) string {
		var e struct {
			Error struct{ Type, Code string } `json:"error"`
		}
		json.Unmarshal([]byte(o.body), &e)
		return e.Error.Type
	}
	tests := []struct {
		kind  string
		body  string
		check func(t *testing.T, o outcome)
	}{
		{"429", faultStream, func(t *testing.T, o outcome) {
			if o.status != 429 || o.header.Get("Retry-After") != "1" || o.header.Get("Retry-After-Ms") != "1000" || errorType(o) != "requests" {
				t.Errorf("%+v", o)
			}
		}},
		{"429-no-retry-after", faultStream, func(t *testing.T, o outcome) {
			if o.status != 429 || o.header.Get("Retry-After") != "" || o.header.Get("x-ratelimit-remaining-requests") != "0" {
				t.Errorf("%+v", o)
			}
		}},
		{"503", faultStream, func(t *testing.T, o outcome) {
			if o.status != 503 || errorType(o) != "server_error" {
				t.Errorf("%+v", o)
			}
		}},
		{"500", faultStream, func(t *testing.T, o outcome) {
			if o.status != 500 || errorType(o) != "server_error" {
				t.Errorf("%+v", o)
			}
		}},
		{"400", faultStream, func(t *testing.T, o outcome) {
			if o.status != 400 || errorType(o) != "invalid_request_error" {
				t.Errorf("%+v", o)
			}
		}},
		{"html", faultStream, func(t *testing.T, o outcome) {
			if o.status != 502 || !strings.HasPrefix(o.header.Get("Content-Type"), "text/html") || !strings.Contains(o.body, "<h1>502 Bad Gateway</h1>") {
				t.Errorf("%+v", o)
			}
		}},
		{"reset-before", faultStream, func(t *testing.T, o outcome) {
			if o.reqErr == nil {
				t.Errorf("request succeeded: %+v", o)
			}
		}},
		{"reset-during", faultStream, func(t *testing.T, o outcome) {
			if o.status != 200 || o.readErr == nil || !strings.Contains(o.body, `"content":"`) || strings.Contains(o.body, "[DONE]") {
				t.Errorf("%+v", o)
			}
		}},
		{"reset-during", faultWhole, func(t *testing.T, o outcome) {
			if o.status != 200 || o.readErr == nil {
				t.Errorf("%+v", o)
			}
		}},
		{"error-event", faultStream, func(t *testing.T, o outcome) {
			if o.status != 200 || !strings.Contains(o.body, `data: {"error":{"message":`) || strings.Contains(o.body, "[DONE]") || o.readErr != nil {
				t.Errorf("%+v", o)
			}
		}},
		{"error-event", faultWhole, func(t *testing.T, o outcome) {
			if o.status != 200 || errorType(o) != "server_error" {
				t.Errorf("%+v", o)
			}
		}},
		{"malformed", faultStream, func(t *testing.T, o outcome) {
			bad := 0
			for _, line := range strings.Split(o.body, "\n") {
				if d, ok := strings.CutPrefix(line, "data: "); ok && d != "[DONE]" && !json.Valid([]byte(d)) {
					bad++
				}
			}
			if o.status != 200 || bad != 1 || !strings.Contains(o.body, "[DONE]") {
				t.Errorf("%d malformed chunks in %+v", bad, o)
			}
		}},
		{"malformed", faultWhole, func(t *testing.T, o outcome) {
			if o.status != 200 || o.readErr != nil || json.Valid([]byte(o.body)) {
				t.Errorf("%+v", o)
			}
		}},
		{"empty-200", faultStream, func(t *testing.T, o outcome) {
			if o.status != 200 || o.body != "" || o.readErr != nil {
				t.Errorf("%+v", o)
			}
		}},
		{"no-done", faultStream, func(t *testing.T, o outcome) {
			if o.status != 200 || o.readErr != nil || strings.Contains(o.body, "[DONE]") || !strings.Contains(o.body, `"finish_reason":"`) {
				t.Errorf("%+v", o)
			}
		}},
		{"no-done", faultWhole, func(t *testing.T, o outcome) {
			if o.readErr == nil {
				t.Errorf("truncated body read cleanly: %+v", o)
			}
		}},
	}
	for _, tc := range tests {
		name := tc.kind
		if tc.body == faultWhole {
			name += "/non-streaming"
		}
		t.Run(name, func(t *testing.T) {
			srv, active := faultServer(t, tc.kind+"=1")
			tc.check(t, send(srv.URL, tc.body, 5*time.Second))
			waitIdle(t, active)
		})
	}
}

// TestFaultSlowHeaders: headers come after the configured delay, so a
// client with a shorter timeout gives up and one with a longer one gets a
// normal stream.
func TestFaultSlowHeaders(t *testing.T) {
	srv, active := faultServer(t, "slow-headers=1,slow-delay=300ms")
	if o := send(srv.URL, faultStream, 50*time.Millisecond); !errors.Is(o.reqErr, context.DeadlineExceeded) {
		t.Errorf("short timeout: %+v", o)
	}
	waitIdle(t, active)
	start := time.Now()
	o := send(srv.URL, faultStream, 5*time.Second)
	if o.status != 200 || !strings.Contains(o.body, "[DONE]") || time.Since(start) < 300*time.Millisecond {
		t.Errorf("after %v: %+v", time.Since(start), o)
	}
}

// TestFaultHang: the server never answers, and its handler returns as soon
// as the client goes away (no leaked goroutines).
func TestFaultHang(t *testing.T) {
	srv, active := faultServer(t, "hang=1")
	if o := send(srv.URL, faultStream, 100*time.Millisecond); !errors.Is(o.reqErr, context.DeadlineExceeded) {
		t.Errorf("%+v", o)
	}
	waitIdle(t, active)
}

// TestFaultHangShutdown: ListenAndServe's shutdown releases hung handlers.
func TestFaultHangShutdown(t *testing.T) {
	p, _ := sim.LookupProfile("soak-fast")
	s, _ := sim.New(p)
	defer s.Close()
	f, _ := ParseFaults("hang=1")
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	go func() {
		errc <- ListenAndServe(ctx, "127.0.0.1:0", s, func(a net.Addr) { addrc <- a.String() }, WithFaults(f))
	}()
	addr := <-addrc
	got := make(chan outcome, 1)
	go func() { got <- send("http://"+addr, faultStream, 10*time.Second) }()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("ListenAndServe: %v", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("shutdown blocked by a hung handler")
	}
	<-got
}

func waitIdle(t *testing.T, active *atomic.Int64) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for active.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d handlers still running", active.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
}
