package engine

import "context"

// Run is one sweep. Create it with New, start it with Start, steer it
// through its Controller methods.
type Run struct {
	p    Provider
	plan Plan
	cfg  options
}

var _ Controller = (*Run)(nil)

// Option configures a Run (functional options, as in vegeta).
type Option func(*options)

type options struct {
	workload Workload
	target   Target
	seed     int64
	version  string
}

// WithWorkload sets the request shape.
func WithWorkload(w Workload) Option { return func(o *options) { o.workload = w } }

// WithTarget names what is measured (for results and the dashboard header).
func WithTarget(t Target) Option { return func(o *options) { o.target = t } }

// WithSeed makes prompt variation reproducible.
func WithSeed(s int64) Option { return func(o *options) { o.seed = s } }

// WithVersion stamps the results with the kneepoint version.
func WithVersion(v string) Option { return func(o *options) { o.version = v } }

// New prepares a run; nothing is sent until Start.
func New(p Provider, plan Plan, opts ...Option) *Run {
	r := &Run{p: p, plan: plan}
	for _, o := range opts {
		o(&r.cfg)
	}
	return r
}

// Start begins the sweep and returns its event channel, which the run
// closes after the Finished event. Cancelling ctx stops the run like Stop.
func (r *Run) Start(ctx context.Context) <-chan Event {
	panic("TODO: being written")
}

func (r *Run) SetConcurrency(n int)       {}
func (r *Run) AddConcurrency(delta int)   {}
func (r *Run) ScaleConcurrency(f float64) {}
func (r *Run) Resume()                    {}
func (r *Run) TogglePause()               {}
func (r *Run) NextLevel()                 {}
func (r *Run) Stop(reason string)         {}
