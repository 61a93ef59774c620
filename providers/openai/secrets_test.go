package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kneepoint/kneepoint/engine"
)

// echoServer answers with bodies that echo the request's Authorization
// header, as misconfigured gateways and some servers' error pages do.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Query().Get("case") {
		case "json401":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprintf(w, `{"error":{"message":"invalid token %q for this deployment"}}`, auth)
		case "html":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(502)
			fmt.Fprintf(w, "<html><head><title>Bad key %s</title></head></html>", auth)
		case "text":
			w.WriteHeader(500)
			// A long body: the key sits past the trimming point.
			fmt.Fprintf(w, "%s %s", strings.Repeat("x ", 95), auth)
		case "stream":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
			fmt.Fprintf(w, "data: {\"error\":{\"message\":\"upstream rejected %s\"}}\n\n", auth)
		case "malformed":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: %s\n\n", auth)
		}
	})
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		fmt.Fprintf(w, `{"error":{"message":"key %s is revoked","type":"invalid_request_error"}}`, r.Header.Get("Authorization"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestKeyNeverInErrors(t *testing.T) {
	srv := echoServer(t)
	for _, c := range []string{"json401", "html", "text", "stream", "malformed"} {
		t.Run(c, func(t *testing.T) {
			p, err := New(WithBaseURL(srv.URL+"/v1?case="+c), WithAPIKey(testKey), WithModel("m"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = doOne(t, p)
			var f *engine.Failure
			if !errors.As(err, &f) {
				t.Fatalf("want a Failure, got %v", err)
			}
			if strings.Contains(f.Error(), testKey) || strings.Contains(f.Error(), testKey[:20]) {
				t.Errorf("key leaked: %s", f.Error())
			}
			if c != "text" && !strings.Contains(f.Message, redacted) {
				t.Errorf("message %q: want the echoed key shown as %s", f.Message, redacted)
			}
		})
	}
	t.Run("models", func(t *testing.T) {
		p, _ := New(WithBaseURL(srv.URL+"/v1"), WithAPIKey(testKey), WithModel("m"))
		err := p.Check(context.Background())
		if err == nil || strings.Contains(err.Error(), testKey) {
			t.Fatalf("Check = %v", err)
		}
		if !strings.Contains(err.Error(), "the API key was refused (401)") {
			t.Errorf("Check = %v, want a refused-key message", err)
		}
	})
}

func TestCredentialsNotShown(t *testing.T) {
	// A closed port: connection errors must not echo the URL's secrets.
	dead := httptest.NewServer(http.NotFoundHandler())
	host := strings.TrimPrefix(dead.URL, "http://")
	dead.Close()
	raw := "http://alice:hunter2pw@" + host + "/v1?api-key=qs-secret-value&x=1"
	p, err := New(WithBaseURL(raw), WithAPIKey(testKey), WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	d := p.Describe()
	_, err = doOne(t, p)
	checkErr := p.Check(context.Background())
	for _, s := range []string{fmt.Sprint(d), err.Error(), checkErr.Error()} {
		for _, secret := range []string{testKey, "hunter2pw", "qs-secret-value", "alice"} {
			if strings.Contains(s, secret) {
				t.Errorf("%q leaks %q", s, secret)
			}
		}
	}
	if d.Provider != "openai" || d.Model != "m" || !strings.HasPrefix(d.BaseURL, "http://"+host+"/v1") {
		t.Errorf("Describe = %+v", d)
	}
	var f *engine.Failure
	if !errors.As(err, &f) || f.Class != engine.ClassConnection || !strings.Contains(f.Message, "cannot reach http://"+host+"/v1") {
		t.Errorf("Do = %v, want a connection failure naming the URL", err)
	}
}

func TestRedirectToOtherHostDropsKey(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // server -> Authorization it received
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen["other"] = r.Header.Get("Authorization")
		mu.Unlock()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer other.Close()
	var origin *httptest.Server
	origin = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		switch r.URL.Path {
		case "/v1/chat/completions": // same origin, another path: keeps the key
			http.Redirect(w, r, origin.URL+"/v2/chat/completions", http.StatusTemporaryRedirect)
		default: // same host name, another port: another origin
			http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
		}
	}))
	defer origin.Close()
	p, err := New(WithBaseURL(origin.URL+"/v1"), WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := doOne(t, p); err != nil {
		t.Fatalf("Do: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["/v2/chat/completions"] != "Bearer "+testKey {
		t.Errorf("same-origin redirect lost the key: %q", seen["/v2/chat/completions"])
	}
	if got, ok := seen["other"]; !ok || got != "" {
		t.Errorf("other host received Authorization %q (reached: %v)", got, ok)
	}
}

// TestKeyNeverInRateHeaders: rate-limit headers go to the dashboard as
// sent, so an echoed key in one is redacted too, on errors and successes.
func TestKeyNeverInRateHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("x-ratelimit-limit-requests", "500 for "+r.Header.Get("Authorization"))
		if r.URL.Query().Get("case") == "429" {
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p, err := New(WithBaseURL(srv.URL+"/v1"), WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tr, err := doOne(t, p)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	p429, err := New(WithBaseURL(srv.URL+"/v1?case=429"), WithAPIKey(testKey))
	if err != nil {
		t.Fatal(err)
	}
	defer p429.Close()
	_, err = doOne(t, p429)
	var f *engine.Failure
	if !errors.As(err, &f) {
		t.Fatalf("Do = %v, want a 429 failure", err)
	}
	rh, _ := tr.RateHeaders()
	got := []string{f.Headers["x-ratelimit-limit-requests"], rh.Limits["x-ratelimit-limit-requests"]}
	for _, s := range got {
		if strings.Contains(s, testKey) || !strings.Contains(s, redacted) {
			t.Errorf("rate header %q: want the key redacted", s)
		}
	}
}
