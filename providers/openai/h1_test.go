package openai

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// rawServer answers every request on 127.0.0.1 with bytes the test writes
// itself, so the lean client meets framings httptest never produces. It
// parses each request with net/http (checking the lean client's request is
// valid HTTP) and hands it to respond, which writes the response and says
// whether to keep the connection.
type rawServer struct {
	ln       net.Listener
	requests atomic.Int64
	mu       sync.Mutex
	last     *http.Request
	lastBody []byte
}

func newRawServer(t *testing.T, respond func(w *bufio.Writer, req *http.Request, n int64) (keep bool)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer conn.Close()
				br, bw := bufio.NewReader(conn), bufio.NewWriter(conn)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					s.mu.Lock()
					s.last, s.lastBody = req, body
					s.mu.Unlock()
					keep := respond(bw, req, s.requests.Add(1))
					if bw.Flush() != nil || !keep {
						return
					}
				}
			})
		}
	})
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/v1" }

// provider is a Provider for the server, closed when the test ends.
func (s *rawServer) provider(t *testing.T, opts ...Option) *Provider {
	t.Helper()
	p, err := New(append([]Option{WithBaseURL(s.url()), WithModel("m")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

const rawStream = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n" +
	"data: {\"choices\":[{\"delta\":{\"content\":\" there\"},\"finish_reason\":\"stop\"}]}\n\n" +
	"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11}}\n\n" +
	"data: [DONE]\n\n"

// chunked encodes s in chunks of n bytes, each with an extension, and
// ends with a trailer field.
func chunked(s string, n int) string {
	var b strings.Builder
	for len(s) > 0 {
		k := min(n, len(s))
		fmt.Fprintf(&b, "%x;ext=1\r\n%s\r\n", k, s[:k])
		s = s[k:]
	}
	return b.String() + "0\r\nX-Trailer: done\r\n\r\n"
}

// needLean skips a test of the lean client where it is not used.
func needLean(t *testing.T) {
	t.Helper()
	if !canProbe {
		t.Skip("no idle-connection probe on this system: the lean client is not used")
	}
}

// TestLeanFraming sends two requests per case through the lean client and
// checks what was read and whether the connection was reused.
func TestLeanFraming(t *testing.T) {
	needLean(t)
	sse := "Content-Type: text/event-stream\r\n"
	long := strings.Repeat("v", 6000) // longer than the 4 KiB read buffer
	tests := []struct {
		name   string
		resp   string // the whole response
		close  bool   // the server closes after responding
		dialed int64  // connections for two requests
		tokens int    // 0: the request fails
		msg    string // failure message substring
	}{
		{name: "content-length", resp: "HTTP/1.1 200 OK\r\n" + sse + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(rawStream)) + rawStream, dialed: 1, tokens: 2},
		{name: "chunked, extensions, trailer", resp: "HTTP/1.1 200 OK\r\n" + sse + "Transfer-Encoding: chunked\r\n\r\n" + chunked(rawStream, 7), dialed: 1, tokens: 2},
		{name: "until close", resp: "HTTP/1.1 200 OK\r\n" + sse + "\r\n" + rawStream, close: true, dialed: 2, tokens: 2},
		{name: "connection: close", resp: "HTTP/1.1 200 OK\r\n" + sse + "Connection: close\r\n" + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(rawStream)) + rawStream, close: true, dialed: 2, tokens: 2},
		{name: "HTTP/1.0", resp: "HTTP/1.0 200 OK\r\n" + sse + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(rawStream)) + rawStream, close: true, dialed: 2, tokens: 2},
		{name: "HTTP/1.0 keep-alive", resp: "HTTP/1.0 200 OK\r\n" + sse + "Connection: keep-alive\r\n" + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(rawStream)) + rawStream, dialed: 1, tokens: 2},
		{name: "interim 100 skipped", resp: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n" + sse + "Transfer-Encoding: chunked\r\n\r\n" + chunked(rawStream, 64), dialed: 1, tokens: 2},
		{name: "length and chunked: chunked wins, not reused", resp: "HTTP/1.1 200 OK\r\n" + sse + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(rawStream, 64), dialed: 2, tokens: 2},
		{name: "header longer than the buffer", resp: "HTTP/1.1 200 OK\r\n" + sse + "X-Long: " + long + "\r\n" + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(rawStream)) + rawStream, dialed: 1, tokens: 2},
		{name: "no reason phrase", resp: "HTTP/1.1 200\r\n" + sse + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(rawStream)) + rawStream, dialed: 1, tokens: 2},
		{name: "malformed status line", resp: "HTTP/1.1 2OO OK\r\n\r\n", close: true, dialed: 2, msg: "malformed HTTP status line"},
		{name: "not HTTP", resp: "SSH-2.0-OpenSSH_9.6\r\n", close: true, dialed: 2, msg: "malformed HTTP status line"},
		{name: "bad content-length", resp: "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n", close: true, dialed: 2, msg: "bad Content-Length"},
		{name: "signed content-length", resp: "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello", close: true, dialed: 2, msg: "bad Content-Length"},
		{name: "gzip transfer coding", resp: "HTTP/1.1 200 OK\r\n" + sse + "Transfer-Encoding: gzip, chunked\r\n\r\n" + chunked(rawStream, 64), close: true, dialed: 2, msg: "unsupported Transfer-Encoding"},
		{name: "two transfer-encoding fields", resp: "HTTP/1.1 200 OK\r\n" + sse + "Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n" + chunked(rawStream, 64), close: true, dialed: 2, msg: "unsupported Transfer-Encoding"},
		{name: "conflicting content-lengths", resp: "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcd", close: true, dialed: 2, msg: "bad Content-Length"},
		{name: "malformed header line", resp: "HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", close: true, dialed: 2, msg: "malformed response header line"},
		{name: "head too large", resp: "HTTP/1.1 200 OK\r\nX-Huge: " + strings.Repeat("h", maxHeadBytes) + "\r\n\r\n", close: true, dialed: 2, msg: "response head larger than"},
		{name: "bad chunk size", resp: "HTTP/1.1 200 OK\r\n" + sse + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", close: true, dialed: 2, msg: "malformed chunked encoding"},
		{name: "closed mid-chunk", resp: "HTTP/1.1 200 OK\r\n" + sse + "Transfer-Encoding: chunked\r\n\r\n" + chunked(rawStream, 64)[:80], close: true, dialed: 2, msg: "stream broken"},
		{name: "closed mid-length", resp: "HTTP/1.1 200 OK\r\n" + sse + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(rawStream)) + rawStream[:60], close: true, dialed: 2, msg: "stream broken"},
		{name: "closed mid-head", resp: "HTTP/1.1 200 OK\r\nContent-Ty", close: true, dialed: 2, msg: "connection closed by server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, _ int64) bool {
				w.WriteString(tt.resp)
				return !tt.close
			})
			p, err := New(WithBaseURL(srv.url()), WithModel("m"), WithTimeout(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			if p.h1 == nil {
				t.Fatal("the lean client is not in use for a plain http:// endpoint")
			}
			for i := range 2 {
				tr, err := doOne(t, p)
				if tt.tokens == 0 {
					var f *engine.Failure
					if !errors.As(err, &f) || !strings.Contains(f.Message, tt.msg) {
						t.Fatalf("request %d: Do = %v, want a failure containing %q", i, err, tt.msg)
					}
					continue
				}
				if err != nil {
					t.Fatalf("request %d: Do: %v", i, err)
				}
				if n, est := tr.OutputTokens(); n != tt.tokens || est {
					t.Errorf("request %d: tokens %d (estimated %v), want %d from usage", i, n, est, tt.tokens)
				}
			}
			if _, dialed := p.Conns(); dialed != tt.dialed {
				t.Errorf("dialed %d connections for 2 requests, want %d", dialed, tt.dialed)
			}
			if got := srv.requests.Load(); got != 2 {
				t.Errorf("server saw %d requests, want 2", got)
			}
		})
	}
}

// TestLeanRequest checks the request the lean client writes, parsed by
// net/http's server-side reader.
func TestLeanRequest(t *testing.T) {
	srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, _ int64) bool {
		fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(rawStream), rawStream)
		return true
	})
	p, err := New(WithBaseURL(srv.url()+"?api-version=2024-10-21"), WithAPIKey(testKey), WithModel("m"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := doOne(t, p); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	req, body := srv.last, srv.lastBody
	srv.mu.Unlock()
	want, _ := p.body(1, 7, 32, 16)
	checks := []struct{ what, got, want string }{
		{"method", req.Method, "POST"},
		{"request URI", req.RequestURI, "/v1/chat/completions?api-version=2024-10-21"},
		{"Host", req.Host, srv.ln.Addr().String()},
		{"protocol", req.Proto, "HTTP/1.1"},
		{"Authorization", req.Header.Get("Authorization"), "Bearer " + testKey},
		{"Content-Type", req.Header.Get("Content-Type"), "application/json"},
		{"Accept", req.Header.Get("Accept"), "text/event-stream"},
		{"User-Agent", req.Header.Get("User-Agent"), userAgent},
		{"Accept-Encoding", req.Header.Get("Accept-Encoding"), ""},
		{"body", string(body), string(want)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
		}
	}
	if req.ContentLength != int64(len(want)) {
		t.Errorf("Content-Length = %d, want %d", req.ContentLength, len(want))
	}
}

// okResponse writes a complete streamed response with a Content-Length.
func okResponse(w *bufio.Writer) {
	fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(rawStream), rawStream)
}

// TestIdleCloseNeverFails: servers close kept-alive connections while idle
// (uvicorn, which serves vLLM, after 5 s). However many pooled connections
// went dead, the next requests must not fail, and each is sent once.
func TestIdleCloseNeverFails(t *testing.T) {
	bothClients(t, "", func(t *testing.T, client Option) {
		srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, _ int64) bool {
			time.Sleep(20 * time.Millisecond) // the first three overlap
			okResponse(w)
			return false // says nothing, closes anyway
		})
		p := srv.provider(t, client)
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if _, err := doOne(t, p); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for i := range 3 {
			time.Sleep(50 * time.Millisecond) // idle: the server's closes arrive
			if _, err := doOne(t, p); err != nil {
				t.Fatalf("request %d after the idle closes: %v", i, err)
			}
		}
		if got := srv.requests.Load(); got != 6 {
			t.Errorf("server saw %d requests, want 6 (each sent once)", got)
		}
	})
}

// TestNoResendOnceWritten: a request the server read and then dropped
// without answering fails; it is never sent again (the server may have
// acted on it), as net/http does for a POST.
func TestNoResendOnceWritten(t *testing.T) {
	bothClients(t, "", func(t *testing.T, client Option) {
		srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, n int64) bool {
			if n == 2 {
				time.Sleep(50 * time.Millisecond) // "working on it", then gone
				return false
			}
			okResponse(w)
			return true
		})
		p := srv.provider(t, client)
		if _, err := doOne(t, p); err != nil {
			t.Fatal(err)
		}
		_, err := doOne(t, p)
		var f *engine.Failure
		if !errors.As(err, &f) || f.Class != engine.ClassConnection {
			t.Errorf("request 2 = %v, want a connection failure", err)
		}
		if got := srv.requests.Load(); got != 2 {
			t.Errorf("server saw %d requests for 2 calls; a written request was sent again", got)
		}
	})
}

// TestUnaskedResponseNotTaken: a response written on an idle connection
// (a proxy's 408 before it hangs up) is not taken as the next request's.
func TestUnaskedResponseNotTaken(t *testing.T) {
	bothClients(t, "", func(t *testing.T, client Option) {
		srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, _ int64) bool {
			okResponse(w)
			w.Flush()
			time.Sleep(20 * time.Millisecond)
			w.WriteString("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
			return false
		})
		p := srv.provider(t, client)
		for i := range 2 {
			if _, err := doOne(t, p); err != nil {
				t.Fatalf("request %d: %v", i, err)
			}
			time.Sleep(60 * time.Millisecond) // the 408 and the close arrive
		}
		if got := srv.requests.Load(); got != 2 {
			t.Errorf("server saw %d requests, want 2", got)
		}
	})
}

// TestLeanCancelMidBody: canceling a request while its body is being read
// unblocks the read at once and the connection is not reused.
func TestLeanCancelMidBody(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, _ int64) bool {
		w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		w.WriteString(chunked(rawStream, 64)[:60])
		w.Flush()
		<-release
		return false
	})
	p := srv.provider(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err := p.Do(ctx, engine.Request{ID: 1, PromptTokens: 8, MaxTokens: 8}, &engine.Trace{})
	var f *engine.Failure
	if !errors.As(err, &f) || f.Class != engine.ClassCanceled {
		t.Fatalf("Do = %v, want canceled", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("cancel took %v to unblock the read", d)
	}
	if open, _ := p.Conns(); open != 0 {
		t.Errorf("%d connections open after a canceled request; it must be closed, not pooled", open)
	}
}

// TestLeanEligible: anything the lean client cannot do stays with net/http.
func TestLeanEligible(t *testing.T) {
	tests := []struct {
		base string
		opts []Option
		lean bool
	}{
		{"http://127.0.0.1:8000/v1", nil, true},
		{"http://127.0.0.1:8000/v1", []Option{WithLeanHTTP(false)}, false},
		{"http://127.0.0.1:8000/v1", []Option{WithHTTP2(true)}, false},
		{"http://127.0.0.1:8000/v1", []Option{WithHTTPClient(&http.Client{})}, false},
		{"https://127.0.0.1:8000/v1", nil, false},
		{"http://user:pass@127.0.0.1:8000/v1", nil, false},
		{"http://[::1]:8000/v1", nil, true},
		{"http://[fe80::1%25eth0]:8000/v1", nil, false}, // a zone: net/http drops it from Host
		{"http://bücher.example:8000/v1", nil, false},   // IDNA: net/http punycodes it
	}
	for _, tt := range tests {
		p, err := New(append([]Option{WithBaseURL(tt.base)}, tt.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.h1 != nil; got != (tt.lean && canProbe) {
			t.Errorf("%s with %d options: lean = %v, want %v", RedactURL(tt.base), len(tt.opts), got, tt.lean)
		}
	}
	// A proxy for the URL (HTTP_PROXY) keeps net/http, which speaks to it.
	viaProxy := func(*http.Request) (*url.URL, error) { return url.Parse("http://127.0.0.1:9") }
	if _, ok := leanEligible(defaults(), "http://10.0.0.1:8000/v1/chat/completions", viaProxy); ok {
		t.Error("lean client chosen for a URL that goes through a proxy")
	}
}

// TestLeanRedirectFollowed: on a redirect the lean client hands the request,
// and every later one, to net/http, which follows it (and drops the key
// across origins, TestRedirectToOtherHostDropsKey).
func TestLeanRedirectFollowed(t *testing.T) {
	needLean(t)
	var paths sync.Map // path -> *atomic.Int64
	srv := newRawServer(t, func(w *bufio.Writer, req *http.Request, _ int64) bool {
		n, _ := paths.LoadOrStore(req.URL.Path, new(atomic.Int64))
		n.(*atomic.Int64).Add(1)
		if req.URL.Path == "/v1/chat/completions" {
			w.WriteString("HTTP/1.1 308 Permanent Redirect\r\nLocation: /v2/chat/completions\r\nContent-Length: 0\r\n\r\n")
			return true
		}
		fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(rawStream), rawStream)
		return true
	})
	p := srv.provider(t)
	for i := range 2 {
		if _, err := doOne(t, p); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	count := func(path string) int64 {
		if n, ok := paths.Load(path); ok {
			return n.(*atomic.Int64).Load()
		}
		return 0
	}
	// Request 1: lean (redirected), then net/http (redirected, followed);
	// request 2: net/http only.
	if v1, v2 := count("/v1/chat/completions"), count("/v2/chat/completions"); v1 != 3 || v2 != 2 {
		t.Errorf("server saw %d requests at /v1 and %d at /v2, want 3 and 2", v1, v2)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.last.URL.Path != "/v2/chat/completions" || len(srv.lastBody) == 0 {
		t.Errorf("last request %s with %d body bytes, want the redirect followed with the body", srv.last.URL.Path, len(srv.lastBody))
	}
}

func TestKeyWithControlCharacterRefused(t *testing.T) {
	_, err := New(WithAPIKey(testKey + "\n"))
	if err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("New = %v, want a refusal that does not show the key", err)
	}
}

// FuzzResponseHead: no response panics the lean client's reader or makes it
// read past a framed body, and whenever both it and net/http read a body
// to its end they read the same bytes.
func FuzzResponseHead(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(rawStream, 9)))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nx-ratelimit-remaining-requests: 0\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nrest"))
	f.Add([]byte("HTTP/1.1 204 No Content\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := readResponseHead(bufio.NewReaderSize(strings.NewReader(string(data)), transportBufSize))
		if err != nil {
			return
		}
		if r.status < 200 || r.status > 999 {
			t.Fatalf("status %d accepted", r.status)
		}
		declared := r.body.left
		got, err := io.ReadAll(io.LimitReader(&r.body, int64(len(data))+1))
		if int64(len(got)) > int64(len(data)) {
			t.Fatalf("read %d body bytes from %d bytes of input", len(got), len(data))
		}
		if err != nil || r.body.mode == bodyUntilClose {
			return
		}
		if r.body.mode == bodyLength && int64(len(got)) != declared {
			t.Fatalf("read %d bytes of a %d-byte body without an error", len(got), declared)
		}
		std, serr := http.ReadResponse(bufio.NewReader(strings.NewReader(string(data))), nil)
		if serr != nil || std.StatusCode != r.status {
			return
		}
		want, serr := io.ReadAll(std.Body)
		if serr == nil && string(want) != string(got) {
			t.Fatalf("body %q, net/http read %q", got, want)
		}
	})
}

// TestLeanClosedKeepsNothing: a response that finishes after Close (or
// after a redirect handed everything to net/http) closes its connection
// instead of pooling it where nothing would ever take or close it.
func TestLeanClosedKeepsNothing(t *testing.T) {
	needLean(t)
	srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, _ int64) bool {
		time.Sleep(50 * time.Millisecond)
		okResponse(w)
		return true
	})
	p := srv.provider(t)
	done := make(chan error)
	go func() { _, err := doOne(t, p); done <- err }()
	time.Sleep(10 * time.Millisecond) // the request is in flight
	p.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if open, _ := p.Conns(); open != 0 {
		t.Errorf("%d connections open after Close and the last response", open)
	}
}

// TestLeanIdleTimeout: after concurrency drops, connections left idle at
// the bottom of the pool are closed once idle past the timeout, while the
// one in use keeps being reused.
func TestLeanIdleTimeout(t *testing.T) {
	needLean(t)
	srv := newRawServer(t, func(w *bufio.Writer, _ *http.Request, _ int64) bool {
		time.Sleep(20 * time.Millisecond) // the first four overlap
		okResponse(w)
		return true
	})
	p := srv.provider(t)
	p.h1.idleTimeout = 50 * time.Millisecond
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := doOne(t, p); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if open, _ := p.Conns(); open != 4 {
		t.Fatalf("%d connections open after 4 concurrent requests, want 4", open)
	}
	for i := range 6 { // concurrency 1 for 6 x ~20 ms
		if _, err := doOne(t, p); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	if open, dialed := p.Conns(); open != 1 || dialed != 4 {
		t.Errorf("open %d, dialed %d after the drop to concurrency 1; want 1 open (the rest timed out), 4 dialed", open, dialed)
	}
}
