package engine

import (
	"context"
	"time"
)

// Provider sends one request to an endpoint and reports what it saw on the
// wire into the Trace. It is the only thing the engine needs from a backend:
// the in-process simulator, the OpenAI-compatible HTTP client and the test
// fakes all satisfy it.
//
// Do must call tr.Start just before the request is written and tr.Token for
// every chunk that carries output (content, reasoning or tool-call output),
// taking the timestamps itself so that timing is measured where it happens.
// It returns nil on success or an error describing the failure; a *Failure
// lets the provider classify it exactly, anything else is classified by
// Classify. Do must return promptly once ctx is done.
type Provider interface {
	Do(ctx context.Context, req Request, tr *Trace) error
}

// Describer is an optional interface: a provider that can name its target
// (provider kind, model, base URL without secrets) for headers and results.
type Describer interface {
	Describe() Target
}

// ConnCounter is an optional interface: a provider that can say how many
// connections it holds open, for the harness-health line.
type ConnCounter interface {
	OpenConns() int64
}

// Request is one unit of work. The provider turns it into a concrete prompt:
// ID and Seed let it vary prompts per request reproducibly.
type Request struct {
	ID           uint64
	Seed         int64
	PromptTokens int
	MaxTokens    int
}

// Target names what is being measured. It never carries an API key.
type Target struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	BaseURL  string `json:"base_url,omitempty"`
	Profile  string `json:"profile,omitempty"`
}

// Trace is the per-request record a provider fills in. The engine owns it and
// reuses one per worker, so recording a chunk allocates nothing.
type Trace struct {
	start      time.Time
	first      time.Time
	last       time.Time
	chunks     int
	counted    int // output tokens counted from chunks (fallback)
	usageOut   int // output tokens from the server's usage, 0 when absent
	usageIn    int
	gaps       []time.Duration
	headers    RateHeaders
	hasHeaders bool
}

// Start marks the moment just before the request is written.
func (t *Trace) Start(now time.Time) { t.start = now }

// Token records a chunk that carried output at time now; n is how many
// tokens the provider counted in it (1 when unknown). The first such chunk
// fixes TTFT, the last fixes end-to-end latency, and the gaps between them
// are the inter-token latencies.
func (t *Trace) Token(now time.Time, n int) {
	if t.chunks == 0 {
		t.first = now
	} else {
		t.gaps = append(t.gaps, now.Sub(t.last))
	}
	t.last = now
	t.chunks++
	if n < 1 {
		n = 1
	}
	t.counted += n
}

// Usage records the token counts the server reported (usage chunk or body).
func (t *Trace) Usage(promptTokens, completionTokens int) {
	t.usageIn = promptTokens
	t.usageOut = completionTokens
}

// RateLimit records the rate-limit headers the server sent, if any.
func (t *Trace) RateLimit(h RateHeaders) {
	t.headers = h
	t.hasHeaders = true
}

// reset prepares the trace for reuse, keeping the gap buffer's capacity.
func (t *Trace) reset() {
	gaps := t.gaps[:0]
	*t = Trace{gaps: gaps}
}

// OutputTokens is the server-reported count when present, else the counted
// one; estimated says which.
func (t *Trace) OutputTokens() (n int, estimated bool) {
	if t.usageOut > 0 {
		return t.usageOut, false
	}
	return t.counted, true
}

// TTFT, E2E and TPOT follow vLLM's benchmark definitions.
func (t *Trace) TTFT() time.Duration { return t.first.Sub(t.start) }
func (t *Trace) E2E() time.Duration  { return t.last.Sub(t.start) }

// TPOT is (E2E - TTFT) / (tokens - 1); ok is false for a single token.
func (t *Trace) TPOT() (time.Duration, bool) {
	n, _ := t.OutputTokens()
	if n < 2 || t.chunks < 1 {
		return 0, false
	}
	return t.last.Sub(t.first) / time.Duration(n-1), true
}

// Chunks is the number of token-bearing chunks recorded.
func (t *Trace) Chunks() int { return t.chunks }

// Gaps are the inter-chunk gaps of this request (valid until reset).
func (t *Trace) Gaps() []time.Duration { return t.gaps }

// StartTime is when the request was written.
func (t *Trace) StartTime() time.Time { return t.start }

// RateHeaders returns the rate-limit headers recorded for this request.
func (t *Trace) RateHeaders() (RateHeaders, bool) { return t.headers, t.hasHeaders }
