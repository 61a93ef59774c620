package sim

import (
	"context"

	"github.com/kneepoint/kneepoint/engine"
)

// Stream is a request inside the simulator seen token by token, for
// servers that forward each token as it is produced (SSE). The scheduler
// never blocks on a Stream: it bumps a counter and signals Ready, and a
// slow reader simply finds several new tokens at once.
type Stream struct {
	sim *Sim
	q   *seq
	hdr map[string]string
}

// SubmitOption adjusts one submitted request.
type SubmitOption func(*submitOpts)

type submitOpts struct{ ignoreEOS bool }

// IgnoreEOS makes the request run to its max tokens, as vLLM's ignore_eos
// does (no early "stop").
func IgnoreEOS() SubmitOption { return func(o *submitOpts) { o.ignoreEOS = true } }

// Submit admits req (frontend delay, validation, rate limits) and queues
// it. A refused request returns an *engine.Failure (429 with Retry-After
// and x-ratelimit-* headers, or 400). ctx bounds only the admission; use
// Cancel to abandon the request once queued.
func (s *Sim) Submit(ctx context.Context, req engine.Request, opts ...SubmitOption) (*Stream, error) {
	var o submitOpts
	for _, f := range opts {
		f(&o)
	}
	q, hdr, err := s.admit(ctx, req, o.ignoreEOS)
	if err != nil {
		return nil, err
	}
	q.ready = make(chan struct{}, 1)
	if err := s.enqueue(q); err != nil {
		return nil, err
	}
	return &Stream{sim: s, q: q, hdr: hdr}, nil
}

// Ready is signalled (coalescing) after every step that produced tokens
// for this request, and at the end.
func (st *Stream) Ready() <-chan struct{} { return st.q.ready }

// Done is closed when the request has finished or was aborted.
func (st *Stream) Done() <-chan struct{} { return st.q.done }

// Tokens is how many output tokens have been produced so far.
func (st *Stream) Tokens() int { return int(st.q.emitted.Load()) }

// PromptTokens is the prompt length the simulator used.
func (st *Stream) PromptTokens() int { return st.q.prompt }

// RateLimits are the x-ratelimit-* headers to send (nil without limits).
func (st *Stream) RateLimits() map[string]string { return st.hdr }

// Result is valid once Done is closed: completion tokens, the finish
// reason ("length" or "stop") and an error if the simulator was closed
// under the request.
func (st *Stream) Result() (completion int, finish string, err error) {
	if st.q.state != stateDone {
		return st.Tokens(), "", errClosed()
	}
	return st.q.generated, st.q.finish, nil
}

// Cancel abandons the request (the client went away); it frees the
// sequence's KV blocks at once. Safe to call at any time, more than once.
func (st *Stream) Cancel() { st.sim.cancel(st.q) }
