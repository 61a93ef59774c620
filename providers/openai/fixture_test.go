package openai

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A fixture is a recorded response with a tiny script around it, stored in
// testdata/fixtures/NAME.txt. Every line is sent verbatim except:
//
//	## text              a note about where the fixture comes from (not sent)
//	#! status 429        the HTTP status (default 200)
//	#! header K: V       a response header (Content-Type defaults to
//	                     text/event-stream)
//	#! crlf              end lines with CRLF instead of LF
//	#! sleep 50ms        flush what was written, then pause
//	#! repeat 400 LINE   send LINE 400 times
//	#! abort             flush, then kill the connection mid-body
//
// Directives before the first body line set up the response; the body is
// flushed at each sleep and at the end.
type fixture struct {
	status  int
	header  http.Header
	crlf    bool
	actions []action
}

type action struct {
	line  string
	sleep time.Duration
	abort bool
}

func loadFixture(t testing.TB, name string) fixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fixtures", name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	fx := fixture{status: 200, header: http.Header{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
		case strings.HasPrefix(line, "#! "):
			cmd, arg, _ := strings.Cut(line[3:], " ")
			switch cmd {
			case "status":
				fx.status, err = strconv.Atoi(arg)
			case "header":
				k, v, _ := strings.Cut(arg, ":")
				fx.header.Add(k, strings.TrimSpace(v))
			case "crlf":
				fx.crlf = true
			case "sleep":
				var d time.Duration
				d, err = time.ParseDuration(arg)
				fx.actions = append(fx.actions, action{sleep: d})
			case "repeat":
				n, rest, _ := strings.Cut(arg, " ")
				var k int
				k, err = strconv.Atoi(n)
				for range k {
					fx.actions = append(fx.actions, action{line: rest})
				}
			case "abort":
				fx.actions = append(fx.actions, action{abort: true})
			default:
				t.Fatalf("fixture %s: unknown directive %q", name, line)
			}
			if err != nil {
				t.Fatalf("fixture %s: %q: %v", name, line, err)
			}
		default:
			fx.actions = append(fx.actions, action{line: line})
		}
	}
	if fx.header.Get("Content-Type") == "" {
		fx.header.Set("Content-Type", "text/event-stream")
	}
	return fx
}

// serve plays the fixture.
func (fx fixture) serve(w http.ResponseWriter) {
	for k, vs := range fx.header {
		w.Header()[k] = vs
	}
	w.WriteHeader(fx.status)
	eol := "\n"
	if fx.crlf {
		eol = "\r\n"
	}
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	for _, a := range fx.actions {
		switch {
		case a.abort:
			flush()
			panic(http.ErrAbortHandler)
		case a.sleep > 0:
			flush()
			time.Sleep(a.sleep)
		default:
			io.WriteString(w, a.line+eol)
		}
	}
	flush()
}

// recorded is what the fake server saw of the last request.
type recorded struct {
	mu     sync.Mutex
	body   []byte
	header http.Header
	n      int
}

func (r *recorded) last() ([]byte, http.Header, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.body, r.header, r.n
}

// fixtureServer serves one fixture for every chat completion request and a
// model list at /v1/models.
func fixtureServer(t testing.TB, name string) (*httptest.Server, *recorded) {
	t.Helper()
	fx := loadFixture(t, name)
	rec := &recorded{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.body, rec.header = b, r.Header.Clone()
		rec.n++
		rec.mu.Unlock()
		fx.serve(w)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, rec
}
