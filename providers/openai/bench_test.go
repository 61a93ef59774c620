package openai

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/kneepoint/kneepoint/engine"
)

// A typical OpenAI content chunk, as sent for every token.
const benchChunk = `{"id":"chatcmpl-AbCdEf0123456789","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],"usage":null}`

// benchBody is a whole response of n content chunks in OpenAI's dialect.
func benchBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"chatcmpl-AbCdEf0123456789","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n")
	for range n {
		b.WriteString("data: " + benchChunk + "\n\n")
	}
	b.WriteString(`data: {"id":"chatcmpl-AbCdEf0123456789","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n")
	b.WriteString(`data: {"id":"chatcmpl-AbCdEf0123456789","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-mini-2024-07-18","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":` + itoa(n) + `,"total_tokens":1}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

// BenchmarkScanChunk is the JSON scan of one content chunk.
func BenchmarkScanChunk(b *testing.B) {
	chunk := []byte(benchChunk)
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		info, err := scanChunk(chunk)
		if err != nil || !info.output {
			b.Fatal(info, err)
		}
	}
}

// BenchmarkChunkPath is the whole per-chunk path of a stream: find the
// line in the read buffer, split the SSE field, scan the JSON, take the
// time and record the token. One op is one content chunk.
func BenchmarkChunkPath(b *testing.B) {
	var body bytes.Buffer
	for range 4096 {
		body.WriteString("data: " + benchChunk + "\n\n")
	}
	src := bytes.NewReader(body.Bytes())
	br := bufio.NewReaderSize(src, readBufSize)
	lr := lineReader{r: br}
	var st streamState
	tr := &engine.Trace{}
	chunks := 0
	b.SetBytes(int64(len("data: " + benchChunk + "\n\n")))
	b.ReportAllocs()
	for b.Loop() {
		for {
			line, err := lr.next()
			if err == io.EOF {
				src.Reset(body.Bytes())
				br.Reset(src)
				continue
			}
			if _, f := st.feed(line, time.Now(), tr); f != nil {
				b.Fatal(f)
			}
			if len(line) > 0 {
				break
			}
		}
		// The engine resets its per-worker Trace after every request, keeping
		// the gap buffer; emulate that so memory stays flat.
		if chunks++; chunks == 1<<20 {
			chunks = 0
			tr = &engine.Trace{}
		}
	}
}

// fakeRT answers every request with a canned event stream, so the
// benchmarks below measure the client, not a server.
type fakeRT struct{ body []byte }

func (f fakeRT) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body:   io.NopCloser(bytes.NewReader(f.body)),
	}, nil
}

func (f fakeRT) Do(r *http.Request) (*http.Response, error) { return f.RoundTrip(r) }

const benchChunks = 256

// BenchmarkStreamLean is one whole request of 256 content chunks through
// Provider.Do (request building included), with the response served from
// memory. ns/chunk and allocs/chunk are per content chunk.
func BenchmarkStreamLean(b *testing.B) {
	body := benchBody(benchChunks)
	p, err := New(WithBaseURL("http://127.0.0.1:1/v1"), WithModel("m"), WithHTTPClient(&http.Client{Transport: fakeRT{body}}))
	if err != nil {
		b.Fatal(err)
	}
	tr := &engine.Trace{}
	req := engine.Request{ID: 1, PromptTokens: 64, MaxTokens: benchChunks}
	b.ReportAllocs()
	for b.Loop() {
		*tr = engine.Trace{}
		if err := p.Do(context.Background(), req, tr); err != nil {
			b.Fatal(err)
		}
		if tr.Chunks() != benchChunks {
			b.Fatal(tr.Chunks())
		}
	}
	perChunk(b)
}

// BenchmarkStreamGoOpenAI does the same with go-openai's stream reader and
// the same token detection, for comparison.
func BenchmarkStreamGoOpenAI(b *testing.B) {
	body := benchBody(benchChunks)
	cfg := goopenai.DefaultConfig("")
	cfg.BaseURL = "http://127.0.0.1:1/v1"
	cfg.HTTPClient = fakeRT{body}
	c := goopenai.NewClientWithConfig(cfg)
	p, _ := New(WithModel("m"))
	tr := &engine.Trace{}
	b.ReportAllocs()
	for b.Loop() {
		*tr = engine.Trace{}
		msgs := syntheticMessages(&p.cfg, p.vocab, 1, 1, 64)
		tr.Start(time.Now())
		s, err := c.CreateChatCompletionStream(context.Background(), goopenai.ChatCompletionRequest{
			Model: "m", Messages: msgs, MaxTokens: benchChunks,
			StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
		})
		if err != nil {
			b.Fatal(err)
		}
		for {
			r, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, ch := range r.Choices {
				if ch.Delta.Content != "" || ch.Delta.ReasoningContent != "" || len(ch.Delta.ToolCalls) > 0 {
					tr.Token(time.Now(), 1)
					break
				}
			}
			if r.Usage != nil {
				tr.Usage(r.Usage.PromptTokens, r.Usage.CompletionTokens)
			}
		}
		s.Close()
		if tr.Chunks() != benchChunks {
			b.Fatal(tr.Chunks())
		}
	}
	perChunk(b)
}

// perChunk adds ns/chunk and allocs/chunk from the benchmark's totals.
func perChunk(b *testing.B) {
	b.Helper()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchChunks), "ns/chunk")
}
