// Package openai is kneepoint's provider for OpenAI-compatible chat
// completion endpoints (OpenAI, vLLM, SGLang, llama.cpp's llama-server,
// TGI, Ollama, LiteLLM and proxies in front of them).
//
// # Use
//
//	p, err := openai.New(
//		openai.WithBaseURL("http://127.0.0.1:8000/v1"), // "" keeps DefaultBaseURL
//		openai.WithAPIKey(openai.ResolveKey(os.Getenv, apiKeyEnv)),
//		openai.WithModel("meta-llama/Llama-3.1-8B-Instruct"),
//		openai.WithMaxConns(maxLevel), // pool sized for the highest concurrency
//	)
//	if err := p.Check(ctx); err != nil { ... } // reachable, key accepted, model served
//	err = p.Do(ctx, engine.Request{...}, trace) // nil or *engine.Failure
//
// Other options: WithStream, WithIncludeUsage, WithTimeout, WithHTTP2, WithLeanHTTP,
// WithSystemPrompt, WithSharedPrefix, WithIgnoreEOS, WithExtraBody,
// WithPromptsFile, WithTemperature, WithMaxTokensField, WithHTTPClient.
// Models lists the served models; Describe names the target without
// secrets; Conns reports open and dialed connections for the
// harness-health line; RedactURL, ResolveKey and ResolveBaseURL help the
// composition root.
//
// # Timing
//
// Requests are timed on the wire with vLLM's benchmark definitions: the
// clock starts just before the request is handed to the HTTP client (so a
// fresh dial is included, as a real client would wait for it), TTFT is the
// first chunk carrying content, reasoning (reasoning_content or reasoning),
// refusal or tool-call output — never the role-only first chunk — and
// every later such chunk is an inter-token gap. Output tokens come from
// the usage the server reports (stream_options.include_usage: OpenAI sends
// it in a chunk with empty choices, llama.cpp inside the final chunk),
// else they are counted one per chunk and marked estimated. Without
// streaming, TTFT equals E2E and there are no gaps. A chunk's time is when
// the read that brought it arrived: the kernel's receive time on the lean
// client under Linux (arrival.go), else when the read returned.
//
// # Design
//
// go-openai (v1.43.0) provides the message and stream-option types and
// lists models. The event stream is read by a lean reader of our own
// (stream.go says why: go-openai cannot tell a truncated stream from a
// complete one, misses "reasoning", gives up after 300 keep-alive comments
// and allocates ~19 times per chunk). On 2 cores, per content chunk of a
// 256-chunk response through the whole client: about 0.4 µs and 0.13
// allocations (33 per request, none in the per-chunk path; lines that
// arrive in one read share one clock reading) against go-openai's 4.9 µs
// and 19.4 allocations (BenchmarkStreamLean / BenchmarkStreamGoOpenAI);
// scanning one chunk takes about 0.3 µs with 0 allocations
// (BenchmarkScanChunk). The request body is appended by hand in chatBody's
// field order (body.go: go-openai's struct cannot send temperature 0,
// ignore_eos or extra_body fields, and encoding/json was a third of a
// non-streaming request's client CPU), checked against json.Marshal.
//
// Plain http:// endpoints without a proxy are spoken to by a lean HTTP/1.1
// client (h1.go, h1read.go; send.go chooses): each request is written and
// its response read on the caller's goroutine, half net/http's client CPU
// per request (BenchmarkLoopbackNonStream). Everything else goes through
// net/http: the transport (transport.go) keeps an idle connection per
// in-flight request, speaks HTTP/1.1 unless WithHTTP2, never forwards the
// key on a redirect to another origin, and counts connections (both
// clients count into the same figures). Failures
// (failure.go) are classified by status or by what broke on the wire,
// carry the server's message with every secret removed, and the
// Retry-After / retry-after-ms / x-ratelimit-* hints (ratelimit.go); the
// engine, not the provider, decides whether to retry.
//
// Synthetic prompts (workload.go) are words from a fixed vocabulary of
// single-token English words, seeded by (Seed, ID): about one token per
// word plus the chat template's few, different for every request unless
// WithSharedPrefix asks for a common system prompt.
package openai
