// Package simserver serves a sim.Sim as an OpenAI-compatible HTTP server,
// the face of `kneepoint serve-sim --addr 127.0.0.1:8000 --profile NAME`.
//
// Endpoints:
//
//   - POST /v1/chat/completions, streaming or not. A stream is OpenAI's:
//     a role chunk ({"role":"assistant","content":""}), one
//     chat.completion.chunk per token written and flushed as the simulated
//     scheduler produces it, an empty-delta chunk with finish_reason
//     "length" or "stop", then with stream_options.include_usage a chunk
//     with "choices":[] and usage (other chunks then carry "usage":null),
//     then data: [DONE]. Chunks are assembled from per-request pre-rendered
//     templates (about 11 ns and no allocation per token). max_tokens and
//     max_completion_tokens (which wins) are honoured, vLLM's ignore_eos
//     too, and "seed" seeds the output length draw.
//   - GET /v1/models and /v1/models/{id} in OpenAI's list/object format.
//   - GET /metrics in Prometheus text format with vLLM's names:
//     vllm:num_requests_running, vllm:num_requests_waiting,
//     vllm:kv_cache_usage_perc (and the older vllm:gpu_cache_usage_perc),
//     vllm:num_preemptions_total, vllm:generation_tokens_total,
//     vllm:prompt_tokens_total, vllm:request_success_total, plus
//     kneepoint_sim_* counters.
//   - GET /health.
//
// Errors use OpenAI's body {"error":{"message","type","param","code"}}:
// 400 invalid_request_error for malformed requests (context_length_exceeded
// past the model's context), 429 rate_limit_exceeded with type "requests"
// or "tokens", Retry-After (whole seconds, rounded up), retry-after-ms and
// x-ratelimit-{limit,remaining,reset}-{requests,tokens} when the profile's
// limits bite (successful responses carry the x-ratelimit-* headers too).
//
// Prompt tokens are estimated without a tokenizer: a whitespace-separated
// word of up to 7 bytes is one token, longer words one more per further 6
// bytes, plus 4 tokens per message and 3 to prime the reply (OpenAI's chat
// accounting). kneepoint's synthetic prompts are made of single-token
// words, so a 150-token workload prompt is reported as 157 prompt tokens.
//
// WithFaults (see ParseFaults) makes the server misbehave at seeded rates:
// 429 with and without Retry-After, 503, 500, 400, an nginx HTML 502 page,
// a connection reset before the response or mid-stream (TCP RST via
// hijack), an error event mid-stream, one malformed chunk, an empty 200,
// a stream without [DONE], headers held back past a client timeout, and a
// server that never answers (its handler returns when the client leaves or
// the server shuts down). Messages of injected faults end in
// "(injected fault)".
package simserver
