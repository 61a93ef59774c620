package simserver

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/providers/sim"
)

// BenchmarkContentChunk is the per-token cost of rendering a chunk: no
// allocation, no JSON encoding.
func BenchmarkContentChunk(b *testing.B) {
	o := &response{srv: &server{model: "llama3-8b"}, id: 42, created: 1700000000, includeUsage: true}
	o.render()
	b.ReportAllocs()
	n := 0
	for i := 0; i < b.N; i++ {
		n += len(o.content(i))
	}
	_ = n
}

// BenchmarkStreams1024 runs 1,024 concurrent streaming requests of 64
// tokens through a real HTTP server (client in the same process) on a
// profile fast enough to be CPU-bound, and reports the process CPU time
// per streamed token (server and client together: an upper bound for the
// server's share).
func BenchmarkStreams1024(b *testing.B) {
	p, _ := sim.LookupProfile("h200-llama3.2-1b")
	p.TimeScale = 0.05
	s, err := sim.New(p)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	srv := httptest.NewServer(New(s))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1024, MaxConnsPerHost: 0}}
	body := `{"messages":[{"role":"user","content":"the of and to in"}],"max_tokens":64,"stream":true,"ignore_eos":true,"stream_options":{"include_usage":true}}`
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	start := time.Now()
	tokens := 0
	var mu sync.Mutex
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for range 1024 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				n := 0
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if strings.Contains(sc.Text(), `"content":"`) {
						n++
					}
				}
				io.Copy(io.Discard, resp.Body)
				mu.Lock()
				tokens += n
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	wall := time.Since(start)
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(syscall.TimevalToNsec(ru1.Utime)-syscall.TimevalToNsec(ru0.Utime)) +
		time.Duration(syscall.TimevalToNsec(ru1.Stime)-syscall.TimevalToNsec(ru0.Stime))
	if tokens > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(tokens), "cpu-ns/token")
		b.ReportMetric(float64(tokens)/wall.Seconds(), "tokens/s")
	}
}
