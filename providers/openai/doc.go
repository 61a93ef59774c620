// Package openai is kneepoint's provider for OpenAI-compatible chat
// completion endpoints (OpenAI, vLLM, SGLang, llama.cpp's llama-server,
// TGI, Ollama, LiteLLM and proxies in front of them).
//
// It times requests on the wire, following vLLM's benchmark definitions:
// the clock starts just before the request is handed to the HTTP client,
// TTFT is the first chunk carrying content, reasoning (reasoning_content
// or reasoning) or tool-call output — never the role-only first chunk —
// and every later token-bearing chunk is an inter-token gap. Output tokens
// come from the usage the server reports (stream_options.include_usage;
// OpenAI sends it in a chunk with empty choices, llama.cpp inside the final
// chunk), else they are counted one per chunk and marked estimated.
//
// It is built on sashabaranov/go-openai for its message and stream-option
// types and for listing models, but reads the event stream itself (see
// stream.go for the reasons and bench_test.go for the numbers) and writes
// its own request body (body.go). Failures are returned as
// *engine.Failure, classified by status or by what went wrong on the wire,
// with the server's message (never the API key) and its rate-limit hints.
package openai
