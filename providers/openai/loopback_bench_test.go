package openai

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/kneepoint/kneepoint/engine"
)

// wholeBody is a small non-streaming completion with usage.
const wholeBody = `{"id":"chatcmpl-bench0123456789","object":"chat.completion","created":1732000000,"model":"bench","system_fingerprint":"fp_bench","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":150,"completion_tokens":1,"total_tokens":151}}`

// BenchmarkLoopbackNonStream is one non-streaming request through Provider.Do
// against a trivial server on 127.0.0.1, 64 in parallel, through the lean
// HTTP/1.1 client and through net/http: the client's per-request cost with
// real sockets (the server shares the process, so ns/op is an upper bound
// on the client's share).
func BenchmarkLoopbackNonStream(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(wholeBody)))
		io.WriteString(w, wholeBody)
	}))
	defer srv.Close()
	for _, lean := range []bool{true, false} {
		name := map[bool]string{true: "lean", false: "net-http"}[lean]
		b.Run(name, func(b *testing.B) {
			p, err := New(WithBaseURL(srv.URL+"/v1"), WithModel("bench"), WithStream(false), WithMaxConns(64), WithLeanHTTP(lean))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.SetParallelism(32) // 64 goroutines on 2 cores
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				tr := &engine.Trace{}
				req := engine.Request{ID: 1, PromptTokens: 150, MaxTokens: 128}
				for pb.Next() {
					*tr = engine.Trace{}
					req.ID++
					if err := p.Do(context.Background(), req, tr); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
