package openai

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfterValue(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"7", 7 * time.Second, true},
		{" 20 ", 20 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"0", 0, true},
		{"Sat, 01 Mar 2025 12:00:30 GMT", 30 * time.Second, true},
		{"Saturday, 01-Mar-25 12:01:00 GMT", time.Minute, true}, // RFC 850
		{"Sat Mar  1 12:00:05 2025", 5 * time.Second, true},     // ANSI C
		{"Fri, 28 Feb 2025 12:00:00 GMT", 0, true},              // in the past: now
		{"99999999999", maxWait, true},
		{"-1", 0, false},
		{"NaN", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseRetryAfterValue(tt.in, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfterValue(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseResetDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1s", time.Second, true},
		{"6m0s", 6 * time.Minute, true},
		{"12ms", 12 * time.Millisecond, true},
		{"1h2m3.5s", time.Hour + 2*time.Minute + 3500*time.Millisecond, true},
		{"0s", 0, true},
		{"2.5", 2500 * time.Millisecond, true}, // bare seconds
		{"-1s", 0, false},
		{"tomorrow", 0, false},
		{"", 0, false},
		{"48h", maxWait, true},
	}
	for _, tt := range tests {
		got, ok := ParseResetDuration(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseResetDuration(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRetryAfterFromHeaders(t *testing.T) {
	now := time.Now()
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	tests := []struct {
		name   string
		h      http.Header
		status int
		want   time.Duration
	}{
		{"retry-after", h("Retry-After", "3"), 429, 3 * time.Second},
		{"ms wins", h("Retry-After", "3", "retry-after-ms", "250"), 429, 250 * time.Millisecond},
		{"bad ms falls back", h("Retry-After", "3", "retry-after-ms", "x"), 429, 3 * time.Second},
		{"503 with Retry-After", h("Retry-After", "10"), 503, 10 * time.Second},
		{"exhausted requests", h("x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "2s",
			"x-ratelimit-remaining-tokens", "5", "x-ratelimit-reset-tokens", "1m0s"), 429, 2 * time.Second},
		{"both exhausted: longest", h("x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "2s",
			"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "6m0s"), 429, 6 * time.Minute},
		{"not exhausted", h("x-ratelimit-remaining-requests", "9", "x-ratelimit-reset-requests", "2s"), 429, 0},
		{"reset only counts for 429", h("x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "2s"), 503, 0},
		{"nothing", h(), 429, 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.h, tt.status, now); got != tt.want {
			t.Errorf("%s: retryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestRateHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("X-Ratelimit-Limit-Requests", "500")
	h.Set("x-ratelimit-reset-tokens", "12ms")
	h.Set("Retry-After", "1")
	h.Set("Retry-After-Ms", "900")
	h.Set("Anthropic-Ratelimit-Requests-Reset", "2025-01-01T00:00:00Z")
	h.Set("Content-Type", "text/event-stream")
	h.Set("Openai-Processing-Ms", "12")
	got := rateHeaders(h)
	want := map[string]string{
		"x-ratelimit-limit-requests": "500", "x-ratelimit-reset-tokens": "12ms", "retry-after": "1",
		"retry-after-ms": "900", "anthropic-ratelimit-requests-reset": "2025-01-01T00:00:00Z",
	}
	if len(got) != len(want) {
		t.Fatalf("rateHeaders = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("rateHeaders[%s] = %q, want %q", k, got[k], v)
		}
	}
	if rateHeaders(http.Header{"Content-Type": {"x"}}) != nil {
		t.Error("no rate headers should give nil (no allocation)")
	}
}
