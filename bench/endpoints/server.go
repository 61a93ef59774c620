package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Modes the endpoint serves.
const (
	modeTrivial = "trivial" // a small fixed JSON completion: the cost of HTTP alone
	modeSSE     = "sse"     // a pre-rendered event stream, optionally paced
	modeDelay   = "delay"   // an event stream whose first byte is held for a fixed delay
)

// settings are the endpoint's flags.
type settings struct {
	mode      string
	tokens    int           // tokens per stream
	interval  time.Duration // gap between tokens (0: all at once)
	firstByte time.Duration // delay before the first byte (delay mode)
	saveBody  string        // write the first request body here (for hey -D)
}

// server answers /v1/chat/completions in one of the modes and counts what
// it served, so a benchmark can divide CPU by tokens actually delivered.
type server struct {
	cfg  settings
	body bodies
	wait waiter

	requests atomic.Int64 // chat requests answered
	tokens   atomic.Int64 // tokens in completed responses
	saveOnce sync.Once

	// excess is how late the first byte left versus the scripted delay, in
	// microseconds: the server's own share of any TTFT excess, reported so
	// the client's share can be told apart.
	mu     sync.Mutex
	excess *hdrhistogram.Histogram
}

func newServer(cfg settings) *server {
	if cfg.tokens < 1 {
		cfg.tokens = 1
	}
	return &server{
		cfg: cfg, body: newBodies(cfg.tokens), wait: newWaiter(),
		excess: hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3),
	}
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.chat)
	mux.HandleFunc("/chat/completions", s.chat)
	mux.HandleFunc("/v1/models", s.models)
	mux.HandleFunc("/stats", s.stats)
	mux.HandleFunc("/", s.root)
	return mux
}

// root answers anything else like chat, so `hey URL` works on any path.
func (s *server) root(w http.ResponseWriter, r *http.Request) { s.chat(w, r) }

func (s *server) models(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, modelsBody)
}

// stats reports counters as JSON: {"requests":..,"tokens":..,
// "first_byte_late_us":{"p50":..,"p99":..,"max":..,"count":..}}.
func (s *server) stats(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	late := map[string]int64{
		"p50": s.excess.ValueAtQuantile(50), "p99": s.excess.ValueAtQuantile(99),
		"max": s.excess.Max(), "count": s.excess.TotalCount(),
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"requests": s.requests.Load(), "tokens": s.tokens.Load(), "first_byte_late_us": late,
	})
}

func (s *server) chat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	s.readBody(r)
	if s.cfg.mode == modeDelay {
		start = arrival(r, start)
	}
	s.requests.Add(1)
	h := w.Header()
	if s.cfg.mode == modeTrivial {
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(s.body.whole)))
		w.Write(s.body.whole)
		s.tokens.Add(1)
		return
	}
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	f, _ := w.(http.Flusher)
	if s.cfg.interval <= 0 && s.cfg.firstByte <= 0 {
		// Everything at once: one write of the pre-rendered stream.
		w.WriteHeader(http.StatusOK)
		if _, err := w.Write(s.body.first); err != nil {
			return
		}
		if _, err := w.Write(s.body.rest); err != nil {
			return
		}
		s.tokens.Add(int64(s.cfg.tokens))
		return
	}
	var err error
	first := func() {
		w.WriteHeader(http.StatusOK)
		if _, err = w.Write(s.body.first); err == nil {
			f.Flush()
		}
	}
	if s.cfg.firstByte > 0 {
		// The waiter's thread writes the first byte itself at the deadline.
		s.wait.at(start.Add(s.cfg.firstByte), func() {
			first()
			s.noteLate(time.Since(start) - s.cfg.firstByte)
		})
	} else {
		first()
	}
	if err != nil {
		return
	}
	if s.cfg.interval <= 0 {
		if _, err := w.Write(s.body.rest); err != nil {
			return
		}
	} else {
		tick := time.NewTicker(s.cfg.interval)
		defer tick.Stop()
		for i := 1; i < s.cfg.tokens; i++ {
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
			if _, err := io.WriteString(w, tokenChunk); err != nil {
				return
			}
			f.Flush()
		}
		if _, err := w.Write(s.body.tail); err != nil {
			return
		}
	}
	s.tokens.Add(int64(s.cfg.tokens))
}

// readBody consumes the request body, keeping the first one when asked
// (hey then sends exactly the bytes kneepoint sent).
func (s *server) readBody(r *http.Request) {
	if s.cfg.saveBody == "" {
		io.Copy(io.Discard, r.Body)
		return
	}
	b, _ := io.ReadAll(r.Body)
	if len(b) == 0 {
		return
	}
	s.saveOnce.Do(func() {
		tmp := s.cfg.saveBody + ".tmp"
		if os.WriteFile(tmp, b, 0o644) == nil {
			os.Rename(tmp, s.cfg.saveBody)
		}
	})
}

func (s *server) noteLate(d time.Duration) {
	us := max(int64(d/time.Microsecond), 1)
	s.mu.Lock()
	s.excess.RecordValue(us)
	s.mu.Unlock()
}
