package main

import (
	"strconv"
)

// The wire format is OpenAI's: every chunk carries the same id, model and
// fingerprint a hosted API sends, so the client parses realistically sized
// chunks (about 260 bytes each), not toy ones.
const (
	chunkHead = `data: {"id":"chatcmpl-bench0123456789","object":"chat.completion.chunk","created":1732000000,"model":"bench","system_fingerprint":"fp_bench","choices":[{"index":0,"delta":`
	roleChunk = chunkHead + `{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n"
	// tokenChunk is one token of output.
	tokenChunk  = chunkHead + `{"content":" token"},"logprobs":null,"finish_reason":null}],"usage":null}` + "\n\n"
	finishChunk = chunkHead + `{},"logprobs":null,"finish_reason":"stop"}],"usage":null}` + "\n\n"
	doneEvent   = "data: [DONE]\n\n"
)

// usageChunk is the trailing usage chunk (stream_options.include_usage).
func usageChunk(tokens int) string {
	return `data: {"id":"chatcmpl-bench0123456789","object":"chat.completion.chunk","created":1732000000,"model":"bench","system_fingerprint":"fp_bench","choices":[],"usage":{"prompt_tokens":150,"completion_tokens":` +
		strconv.Itoa(tokens) + `,"total_tokens":` + strconv.Itoa(150+tokens) + `}}` + "\n\n"
}

// bodies are the pre-rendered responses, built once at start so serving a
// request costs a write, not an encoding.
type bodies struct {
	tokens int
	// first is what a stream sends first: the role chunk and the first
	// token, in one write, so the first byte on the wire is also the
	// first token (TTFT is then the scripted delay).
	first []byte
	// rest is every later token, finish, usage and [DONE]: the remainder
	// of a stream written at once when there is no token interval.
	rest []byte
	// tail is finish, usage and [DONE], for paced streams.
	tail []byte
	// whole is a non-streaming chat completion with usage.
	whole []byte
}

func newBodies(tokens int) bodies {
	b := bodies{tokens: tokens}
	b.first = []byte(roleChunk + tokenChunk)
	tail := finishChunk + usageChunk(tokens) + doneEvent
	b.tail = []byte(tail)
	rest := make([]byte, 0, (tokens-1)*len(tokenChunk)+len(tail))
	for i := 1; i < tokens; i++ {
		rest = append(rest, tokenChunk...)
	}
	b.rest = append(rest, tail...)
	b.whole = []byte(`{"id":"chatcmpl-bench0123456789","object":"chat.completion","created":1732000000,"model":"bench","system_fingerprint":"fp_bench","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":150,"completion_tokens":1,"total_tokens":151}}`)
	return b
}

// modelsBody answers GET /v1/models, which kneepoint checks before a sweep.
const modelsBody = `{"object":"list","data":[{"id":"bench","object":"model","created":1732000000,"owned_by":"bench"}]}`
