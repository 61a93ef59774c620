package openai

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

const testKey = "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"

func newTestProvider(t testing.TB, srv *httptest.Server, opts ...Option) *Provider {
	t.Helper()
	all := append([]Option{WithBaseURL(srv.URL + "/v1"), WithAPIKey(testKey), WithModel("test-model")}, opts...)
	p, err := New(all...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func doOne(t testing.TB, p *Provider) (*engine.Trace, error) {
	t.Helper()
	tr := &engine.Trace{}
	err := p.Do(context.Background(), engine.Request{ID: 7, Seed: 1, PromptTokens: 32, MaxTokens: 16}, tr)
	return tr, err
}

// bothClients runs a subtest through the lean HTTP/1.1 client and through
// net/http: the two must read every response the same way.
func bothClients(t *testing.T, name string, f func(t *testing.T, client Option)) {
	t.Helper()
	if name != "" {
		name += "/"
	}
	t.Run(name+"lean", func(t *testing.T) { f(t, WithLeanHTTP(true)) })
	t.Run(name+"net-http", func(t *testing.T) { f(t, WithLeanHTTP(false)) })
}

// within asserts got is in [want-lo, want+hi].
func within(t *testing.T, what string, got, want, lo, hi time.Duration) {
	t.Helper()
	if got < want-lo || got > want+hi {
		t.Errorf("%s = %v, want %v (-%v/+%v)", what, got, want, lo, hi)
	}
}

func TestStreamFixtures(t *testing.T) {
	tests := []struct {
		fixture   string
		chunks    int
		tokens    int
		estimated bool
		ttft      time.Duration // 0: not scripted
	}{
		{fixture: "openai_role_usage", chunks: 5, tokens: 5, ttft: 50 * time.Millisecond},
		{fixture: "llamacpp_final_usage", chunks: 4, tokens: 4, ttft: 50 * time.Millisecond},
		{fixture: "llamacpp_no_done", chunks: 2, tokens: 2},
		{fixture: "no_usage", chunks: 3, tokens: 3, estimated: true, ttft: 50 * time.Millisecond},
		{fixture: "reasoning_content", chunks: 3, tokens: 3, ttft: 50 * time.Millisecond},
		{fixture: "reasoning", chunks: 3, tokens: 3, ttft: 50 * time.Millisecond},
		{fixture: "tool_calls", chunks: 3, tokens: 17, ttft: 50 * time.Millisecond},
		{fixture: "keepalive", chunks: 2, tokens: 2, estimated: true, ttft: 50 * time.Millisecond},
		{fixture: "crlf", chunks: 2, tokens: 2, ttft: 50 * time.Millisecond},
		{fixture: "multiline_data", chunks: 1, tokens: 1, estimated: true},
		{fixture: "aborted_after_finish", chunks: 1, tokens: 1, estimated: true},
		{fixture: "json_instead_of_stream", chunks: 1, tokens: 4, ttft: 50 * time.Millisecond},
	}
	for _, tt := range tests {
		bothClients(t, tt.fixture, func(t *testing.T, client Option) {
			srv, _ := fixtureServer(t, tt.fixture)
			p := newTestProvider(t, srv, client)
			tr, err := doOne(t, p)
			if err != nil {
				t.Fatalf("Do: %v", err)
			}
			if got := tr.Chunks(); got != tt.chunks {
				t.Errorf("chunks = %d, want %d", got, tt.chunks)
			}
			n, est := tr.OutputTokens()
			if n != tt.tokens || est != tt.estimated {
				t.Errorf("tokens = %d (estimated %v), want %d (estimated %v)", n, est, tt.tokens, tt.estimated)
			}
			if len(tr.Gaps()) != tt.chunks-1 {
				t.Errorf("ITL samples = %d, want %d", len(tr.Gaps()), tt.chunks-1)
			}
			if tt.ttft > 0 {
				within(t, "TTFT", tr.TTFT(), tt.ttft, 5*time.Millisecond, 15*time.Millisecond)
				for i, g := range tr.Gaps() {
					if tt.fixture == "json_instead_of_stream" {
						break
					}
					// Scripted 10 ms between chunks; a late chunk shortens
					// the next gap, so the lower bound is loose.
					within(t, "ITL gap "+string(rune('0'+i)), g, 10*time.Millisecond, 8*time.Millisecond, 15*time.Millisecond)
				}
			}
			if tr.E2E() < tr.TTFT() {
				t.Errorf("E2E %v < TTFT %v", tr.E2E(), tr.TTFT())
			}
		})
	}
}

func TestStreamFailures(t *testing.T) {
	tests := []struct {
		fixture    string
		class      engine.ErrorClass
		status     int
		msg        string // substring of the message
		retryAfter time.Duration
		headers    []string
	}{
		{fixture: "error_midstream", class: engine.ClassStream, msg: "The server had an error while processing"},
		{fixture: "event_error", class: engine.ClassStream, msg: "model overloaded, retry later"},
		{fixture: "truncated", class: engine.ClassStream, msg: "truncated"},
		{fixture: "aborted", class: engine.ClassStream, msg: "stream broken after 1 output chunks"},
		{fixture: "malformed", class: engine.ClassStream, msg: "malformed chunk after 1 output chunks"},
		{fixture: "empty_output", class: engine.ClassStream, msg: "without any output"},
		{fixture: "proxy_502_html", class: engine.ClassServer, status: 502, msg: "HTML error page (502): 502 Bad Gateway"},
		{fixture: "cloudflare_524_html", class: engine.ClassServer, status: 524, msg: "HTML error page (524): example.com | 524: A timeout occurred"},
		{fixture: "rate_limit_retry_after", class: engine.ClassRateLimited, status: 429, msg: "Rate limit reached for gpt-4o-mini",
			retryAfter: 7 * time.Second, headers: []string{"retry-after", "x-ratelimit-limit-requests", "x-ratelimit-remaining-requests",
				"x-ratelimit-reset-requests", "x-ratelimit-limit-tokens", "x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"}},
		{fixture: "rate_limit_retry_after_ms", class: engine.ClassRateLimited, status: 429, msg: "Please try again in 1.5s. [rate_limit_exceeded]",
			retryAfter: 1500 * time.Millisecond, headers: []string{"retry-after", "retry-after-ms"}},
		{fixture: "rate_limit_bare", class: engine.ClassRateLimited, status: 429, msg: "Too many requests"},
		{fixture: "rate_limit_reset", class: engine.ClassRateLimited, status: 429, msg: "Rate limit reached",
			retryAfter: 1500 * time.Millisecond, headers: []string{"x-ratelimit-remaining-requests", "x-ratelimit-reset-requests",
				"x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"}},
		{fixture: "insufficient_quota", class: engine.ClassRateLimited, status: 429, msg: "[insufficient_quota]"},
		{fixture: "overloaded_503", class: engine.ClassOverloaded, status: 503, msg: "The server is overloaded", headers: []string{"retry-after"}},
		{fixture: "overloaded_529", class: engine.ClassOverloaded, status: 529, msg: "Overloaded", retryAfter: 3 * time.Second, headers: []string{"retry-after"}},
		{fixture: "server_error_500", class: engine.ClassServer, status: 500, msg: "type must be string, but is null"},
		{fixture: "bad_request_400", class: engine.ClassClient, status: 400, msg: "This model's maximum context length is 4096 tokens"},
		{fixture: "validation_422", class: engine.ClassClient, status: 422, msg: "Field required"},
		{fixture: "unauthorized_401", class: engine.ClassClient, status: 401, msg: "Incorrect API key provided"},
		{fixture: "plain_text_404", class: engine.ClassClient, status: 404, msg: "404 page not found"},
	}
	for _, tt := range tests {
		bothClients(t, tt.fixture, func(t *testing.T, client Option) {
			srv, _ := fixtureServer(t, tt.fixture)
			p := newTestProvider(t, srv, client)
			tr, err := doOne(t, p)
			var f *engine.Failure
			if !errors.As(err, &f) {
				t.Fatalf("Do = %v (%T), want *engine.Failure", err, err)
			}
			if f.Class != tt.class || f.Status != tt.status {
				t.Errorf("class, status = %s, %d; want %s, %d", f.Class, f.Status, tt.class, tt.status)
			}
			if !strings.Contains(f.Message, tt.msg) {
				t.Errorf("message %q does not contain %q", f.Message, tt.msg)
			}
			if n := len([]rune(f.Message)); n > maxMessage+1 {
				t.Errorf("message is %d runes, want <= %d", n, maxMessage+1)
			}
			if f.RetryAfter != tt.retryAfter {
				t.Errorf("RetryAfter = %v, want %v", f.RetryAfter, tt.retryAfter)
			}
			if len(f.Headers) != len(tt.headers) {
				t.Errorf("headers = %v, want keys %v", f.Headers, tt.headers)
			}
			for _, h := range tt.headers {
				if _, ok := f.Headers[h]; !ok {
					t.Errorf("header %s missing from %v", h, f.Headers)
				}
			}
			if strings.Contains(f.Error(), testKey) {
				t.Errorf("key leaked: %s", f.Error())
			}
			// A failed request's usage must not reach the trace.
			if n, est := tr.OutputTokens(); !est && n > 0 {
				t.Errorf("failed request recorded server usage %d", n)
			}
		})
	}
}
