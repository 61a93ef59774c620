package simserver

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/kneepoint/kneepoint/providers/sim"
)

// Option configures the server.
type Option func(*server)

// WithModelName overrides the served model name (default: the profile's).
func WithModelName(name string) Option { return func(s *server) { s.model = name } }

// WithFaults injects failures at the given rates (see ParseFaults).
func WithFaults(f Faults) Option { return func(s *server) { s.faults = f } }

// WithClock makes the created timestamps and fault delays use now
// instead of time.Now (tests).
func WithClock(now func() time.Time) Option { return func(s *server) { s.now = now } }

type server struct {
	sim     *sim.Sim
	model   string
	faults  Faults
	now     func() time.Time
	started time.Time
	nextID  atomic.Uint64
	// faultsInjected counts injected faults, for /metrics.
	faultsInjected atomic.Uint64
	// quit is closed by ListenAndServe on shutdown so hung handlers return.
	quit chan struct{}
}

// New returns the HTTP handler serving s.
func New(s *sim.Sim, opts ...Option) http.Handler {
	return newServer(s, opts...).routes()
}

func newServer(s *sim.Sim, opts ...Option) *server {
	srv := &server{sim: s, model: s.Profile().Model, now: time.Now, quit: make(chan struct{})}
	for _, o := range opts {
		o(srv)
	}
	srv.started = srv.now()
	return srv
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/models/{id}", s.model1)
	mux.HandleFunc("GET /metrics", s.metrics)
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "Unknown request URL: "+r.Method+" "+r.URL.Path+". Please check the URL for typos.", nil)
	})
	return mux
}

// ListenAndServe serves s on addr until ctx is done, then shuts down
// gracefully (in-flight streams get 5 s). ready, if not nil, receives the
// bound address once listening (useful with port 0).
func ListenAndServe(ctx context.Context, addr string, s *sim.Sim, ready func(net.Addr), opts ...Option) error {
	srv := newServer(s, opts...)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           srv.routes(),
		ReadHeaderTimeout: 10 * time.Second,
	}
	if ready != nil {
		ready(ln.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	close(srv.quit)
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = hs.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
