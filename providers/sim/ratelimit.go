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
// OpenAI-style per-minute limits: refilled at limit per minute, holding at
// most depth. OpenAI enforces limits over periods shorter than a minute
// ("60 RPM may be enforced as 1 request per second"), so depth is the
// limit scaled to the profile's RateBurst rather than a full minute's worth.
type bucket struct {
	limit float64 // per minute
	depth float64
	level float64
	last  time.Time
}

func newBucket(limit int, burst time.Duration, now time.Time) *bucket {
	depth := float64(limit)
	if burst > 0 && burst < time.Minute {
		depth = math.Max(1, float64(limit)*burst.Minutes())
	}
	return &bucket{limit: float64(limit), depth: depth, level: depth, last: now}
}

func (b *bucket) rate() float64 { return b.limit / 60 } // per second

func (b *bucket) refill(now time.Time) {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.level = math.Min(b.depth, b.level+dt*b.rate())
	}
	b.last = now
}

// need is the level a request of n must find: n, or a full bucket for a
// request larger than the bucket (it then leaves the bucket in debt, which
// later requests wait out).
func (b *bucket) need(n float64) float64 { return math.Min(n, b.depth) }

// wait is how long until the bucket holds x.
func (b *bucket) wait(x float64) time.Duration {
	if b.level >= x {
		return 0
	}
	return time.Duration((x - b.level) / b.rate() * float64(time.Second))
}

// reset is how long until the bucket is full again (x-ratelimit-reset-*).
func (b *bucket) reset() time.Duration { return b.wait(b.depth) }

// remaining is what x-ratelimit-remaining-* reports: the bucket's content.
func (b *bucket) remaining() float64 { return math.Max(0, math.Floor(b.level)) }

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
		l.req = newBucket(p.RPM, p.RateBurst, now)
	}
	if p.TPM > 0 {
		l.tok = newBucket(p.TPM, p.RateBurst, now)
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
	n := float64(tokens)
	var b *bucket
	var unit string
	var asked float64
	switch {
	case l.tok != nil && n > l.tok.limit:
		// No wait can help: OpenAI's "Request too large" case.
		h := l.headers()
		return h, &engine.Failure{
			Class: engine.ClassRateLimited, Status: 429, Headers: h,
			Message: fmt.Sprintf("Request too large for %s in organization org-kneepoint-sim on tokens per min (TPM): Limit %.0f, Requested %.0f. The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.",
				l.model, l.tok.limit, n),
		}
	case l.req != nil && l.req.level < l.req.need(1):
		b, unit, asked = l.req, "requests per min (RPM)", 1
	case l.tok != nil && l.tok.level < l.tok.need(n):
		b, unit, asked = l.tok, "tokens per min (TPM)", n
	default:
		if l.req != nil {
			l.req.level--
		}
		if l.tok != nil {
			l.tok.level -= n
		}
		return l.headers(), nil
	}
	wait := max(b.wait(b.need(asked)).Round(time.Millisecond), time.Millisecond)
	h := l.headers()
	return h, &engine.Failure{
		Class:  engine.ClassRateLimited,
		Status: 429,
		Message: fmt.Sprintf("Rate limit reached for %s in organization org-kneepoint-sim on %s: Limit %.0f, Used %.0f, Requested %.0f. Please try again in %s. Visit https://platform.openai.com/account/rate-limits to learn more.",
			l.model, unit, b.limit, b.limit-b.remaining(), asked, wait),
		RetryAfter: wait,
		Headers:    h,
	}
}

// headers renders the buckets as OpenAI's x-ratelimit-* headers: the
// per-minute limit, the bucket's content as remaining, and the time until
// it is full as reset (Go-style durations like "1s", "6m0s", "12ms").
func (l *limiter) headers() map[string]string {
	h := make(map[string]string, 6)
	if l.req != nil {
		h["x-ratelimit-limit-requests"] = strconv.FormatFloat(l.req.limit, 'f', 0, 64)
		h["x-ratelimit-remaining-requests"] = strconv.FormatFloat(l.req.remaining(), 'f', 0, 64)
		h["x-ratelimit-reset-requests"] = l.req.reset().Round(time.Millisecond).String()
	}
	if l.tok != nil {
		h["x-ratelimit-limit-tokens"] = strconv.FormatFloat(l.tok.limit, 'f', 0, 64)
		h["x-ratelimit-remaining-tokens"] = strconv.FormatFloat(l.tok.remaining(), 'f', 0, 64)
		h["x-ratelimit-reset-tokens"] = l.tok.reset().Round(time.Millisecond).String()
	}
	return h
}
