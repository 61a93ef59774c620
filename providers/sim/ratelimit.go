package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// bucket is a continuously refilled token bucket, the model behind
// OpenAI-style per-minute limits: capacity limit, refilled at limit/minute.
type bucket struct {
	limit float64
	level float64
	last  time.Time
}

func newBucket(limit int, now time.Time) *bucket {
	return &bucket{limit: float64(limit), level: float64(limit), last: now}
}

func (b *bucket) rate() float64 { return b.limit / 60 } // per second

func (b *bucket) refill(now time.Time) {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.level = math.Min(b.limit, b.level+dt*b.rate())
	}
	b.last = now
}

// wait is how long until the bucket holds n.
func (b *bucket) wait(n float64) time.Duration {
	if b.level >= n {
		return 0
	}
	return time.Duration((n - b.level) / b.rate() * float64(time.Second))
}

// reset is how long until the bucket is full again (x-ratelimit-reset-*).
func (b *bucket) reset() time.Duration { return b.wait(b.limit) }

// limiter applies requests-per-minute and tokens-per-minute buckets.
type limiter struct {
	model    string
	req, tok *bucket
}

func newLimiter(p Profile, now time.Time) *limiter {
	if p.RPM <= 0 && p.TPM <= 0 {
		return nil
	}
	l := &limiter{model: p.Model}
	if p.RPM > 0 {
		l.req = newBucket(p.RPM, now)
	}
	if p.TPM > 0 {
		l.tok = newBucket(p.TPM, now)
	}
	return l
}

// RateLimitType names which limit refused a request, as OpenAI's error
// "type" field does: "requests" or "tokens" ("" when f is not a simulator
// rate-limit failure).
func RateLimitType(f *engine.Failure) string {
	switch {
	case f == nil || f.Status != 429:
		return ""
	case strings.Contains(f.Message, "on requests per min"):
		return "requests"
	case strings.Contains(f.Message, "on tokens per min"):
		return "tokens"
	}
	return ""
}

// take admits a request of tokens (prompt + max_tokens) at now, returning
// the x-ratelimit-* headers to send either way and, when refused, a 429
// Failure with Retry-After.
func (l *limiter) take(now time.Time, tokens int) (map[string]string, *engine.Failure) {
	if l.req != nil {
		l.req.refill(now)
	}
	if l.tok != nil {
		l.tok.refill(now)
	}
	var kind, unit string // kind: OpenAI error type
	var limit, used float64
	var wait time.Duration
	n := float64(tokens)
	switch {
	case l.req != nil && l.req.level < 1:
		kind, unit, limit, used = "requests", "requests per min (RPM)", l.req.limit, l.req.limit-math.Floor(l.req.level)
		wait, n = l.req.wait(1), 1
	case l.tok != nil && l.tok.level < n:
		kind, unit, limit, used = "tokens", "tokens per min (TPM)", l.tok.limit, l.tok.limit-math.Floor(l.tok.level)
		wait = l.tok.wait(n)
	default:
		if l.req != nil {
			l.req.level--
		}
		if l.tok != nil {
			l.tok.level -= n
		}
		return l.headers(), nil
	}
	h := l.headers()
	var msg string
	if kind == "tokens" && n > l.tok.limit {
		// No wait can help: OpenAI's "Request too large" case.
		wait = 0
		msg = fmt.Sprintf("Request too large for %s in organization org-kneepoint-sim on %s: Limit %.0f, Requested %.0f. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.",
			l.model, unit, limit, n)
	} else {
		wait = max(wait.Round(time.Millisecond), time.Millisecond)
		msg = fmt.Sprintf("Rate limit reached for %s in organization org-kneepoint-sim on %s: Limit %.0f, Used %.0f, Requested %.0f. Please try again in %s. Visit https://platform.openai.com/account/rate-limits to learn more.",
			l.model, unit, limit, used, n, wait)
	}
	return h, &engine.Failure{
		Class:      engine.ClassRateLimited,
		Status:     429,
		Message:    msg,
		RetryAfter: wait,
		Headers:    h,
	}
}

// headers renders the current bucket levels as OpenAI's x-ratelimit-*
// headers (resets as Go-style durations like "1s", "6m0s", "12ms").
func (l *limiter) headers() map[string]string {
	h := make(map[string]string, 7)
	if l.req != nil {
		h["x-ratelimit-limit-requests"] = strconv.FormatFloat(l.req.limit, 'f', 0, 64)
		h["x-ratelimit-remaining-requests"] = strconv.FormatFloat(math.Max(0, math.Floor(l.req.level)), 'f', 0, 64)
		h["x-ratelimit-reset-requests"] = l.req.reset().Round(time.Millisecond).String()
	}
	if l.tok != nil {
		h["x-ratelimit-limit-tokens"] = strconv.FormatFloat(l.tok.limit, 'f', 0, 64)
		h["x-ratelimit-remaining-tokens"] = strconv.FormatFloat(math.Max(0, math.Floor(l.tok.level)), 'f', 0, 64)
		h["x-ratelimit-reset-tokens"] = l.tok.reset().Round(time.Millisecond).String()
	}
	return h
}
