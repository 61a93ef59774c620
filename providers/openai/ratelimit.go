package openai

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxWait caps any parsed wait: a header asking for more than a day is
// nonsense and must not overflow a Duration.
const maxWait = 24 * time.Hour

// ParseRetryAfter reads the server's wait hint from a response's headers:
// retry-after-ms (OpenAI's non-standard, more precise header) first, then
// Retry-After as delay-seconds (integer or decimal) or an HTTP date taken
// relative to now. ok is false when neither is present and parseable.
func ParseRetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && ms >= 0 && !math.IsInf(ms, 0) {
			return clampWait(ms * float64(time.Millisecond)), true
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		return ParseRetryAfterValue(v, now)
	}
	return 0, false
}

// ParseRetryAfterValue parses one Retry-After value: delay-seconds or an
// HTTP date (a date in the past means "now": 0, true).
func ParseRetryAfterValue(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
			return 0, false
		}
		return clampWait(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return min(d, maxWait), true
	}
	return 0, false
}

// ParseResetDuration parses an x-ratelimit-reset-* value. OpenAI sends Go
// style durations ("1s", "6m0s", "12ms", "1h2m3.5s"); some compatible
// servers send bare seconds ("1.5"), which are accepted too.
func ParseResetDuration(v string) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil {
		if d < 0 {
			return 0, false
		}
		return min(d, maxWait), true
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && !math.IsInf(s, 0) {
		return clampWait(s * float64(time.Second)), true
	}
	return 0, false
}

func clampWait(ns float64) time.Duration {
	if math.IsNaN(ns) || ns < 0 {
		return 0
	}
	if ns >= float64(maxWait) {
		return maxWait
	}
	return time.Duration(ns)
}

// isRateHeader reports whether a header is one of the rate-limit hints the
// dashboard shows: retry-after, retry-after-ms, x-ratelimit-* and
// anthropic-ratelimit-* (case-insensitive).
func isRateHeader(name string) bool {
	return strings.EqualFold(name, "retry-after") ||
		strings.EqualFold(name, "retry-after-ms") ||
		hasPrefixFold(name, "x-ratelimit-") ||
		hasPrefixFold(name, "anthropic-ratelimit-")
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// rateHeaders collects the rate-limit headers, keyed by lower-case name,
// or returns nil when there are none (so a response without them costs no
// allocation).
func rateHeaders(h http.Header) map[string]string {
	var m map[string]string
	for k, vs := range h {
		if len(vs) == 0 || !isRateHeader(k) {
			continue
		}
		if m == nil {
			m = make(map[string]string, 8)
		}
		m[strings.ToLower(k)] = vs[0]
	}
	return m
}

// retryAfter is the wait a response asks for. Retry-After and
// retry-after-ms win; on a 429 without them, the reset time of an exhausted
// budget (x-ratelimit-remaining-requests or -tokens at 0) is used, since
// that is when the server will accept work again.
func retryAfter(h http.Header, status int, now time.Time) time.Duration {
	if d, ok := ParseRetryAfter(h, now); ok {
		return d
	}
	if status != http.StatusTooManyRequests {
		return 0
	}
	var wait time.Duration
	for _, dim := range [...]string{"requests", "tokens"} {
		if strings.TrimSpace(h.Get("X-Ratelimit-Remaining-"+dim)) != "0" {
			continue
		}
		if d, ok := ParseResetDuration(h.Get("X-Ratelimit-Reset-" + dim)); ok && d > wait {
			wait = d
		}
	}
	return wait
}
