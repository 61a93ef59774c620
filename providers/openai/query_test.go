package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestBaseURLQueryKept: a base URL's query (Azure's api-version, a
// gateway's key) goes with every request, after the endpoint's path.
func TestBaseURLQueryKept(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		got = append(got, r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	p, err := New(WithBaseURL(srv.URL+"/v1/?api-version=2024-10-21&api_key=qk"), WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	if _, err := doOne(t, p); err != nil {
		t.Fatalf("Do: %v", err)
	}
	want := []string{"/v1/models?api-version=2024-10-21&api_key=qk", "/v1/chat/completions?api-version=2024-10-21&api_key=qk"}
	// The lean client reads through a RawConn, which the race detector
	// does not see as synchronising with the server's write: lock.
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("requests %q, want %q", got, want)
	}
	if d := p.Describe().BaseURL; d != srv.URL+"/v1?api-version=2024-10-21&api_key=REDACTED" {
		t.Errorf("Describe().BaseURL = %q", d)
	}
}
