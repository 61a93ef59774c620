// Package sim is a real-time simulation of one GPU inference server
// running vLLM-style continuous batching, so that saturation in a
// kneepoint sweep comes from scheduling physics rather than a scripted
// latency curve.
//
// # Scheduler (core.go)
//
// Each step follows vLLM V1's scheduler: running sequences first (one
// decode token each, or the next chunk of a partly computed prompt), then
// waiting ones in FIFO order while the step's token budget
// (max_num_batched_tokens, prompts are chunked to fit), max_num_seqs and
// free KV blocks allow. The KV cache is paged in blocks of 16 tokens; each
// sequence holds blocks for its prompt and generated tokens. When a running
// sequence cannot get a block for its next token, the newest running
// sequence is preempted: its blocks are freed and it returns to the front
// of the waiting queue to recompute prompt + output so far. Requests beyond
// capacity wait, so TTFT climbs past the knee as it does on a real server.
// The core is a pure state machine (plan, then commit at the step's end);
// the Sim drives it in real time and VirtualLoad drives it on virtual time.
//
// # Step time, fitted to measurements (model.go, model_test.go)
//
// Step times come from calibration/h200-dense-llm.json (decode steps of
// batch B at context L, prefill of T tokens, on an H200). Decode is a soft
// roofline, (x^Q + y^Q)^(1/Q) with a latency floor x = A0 + E·L̄ (weights
// streamed once per step, single-sequence attention) and a throughput
// branch y = A1 + Bs·B + C·ΣL (matmul work per sequence, KV reads per
// context token). Prefill is P0 + P1·T + P2·T². Least squares on relative
// error (Nelder-Mead, reproduced by TestFitError) gives, in milliseconds:
//
//	llama3-8b:   A0 4.425  E 3.663e-4  A1 3.323  Bs 0.02083  C 3.214e-5  Q 5.16
//	             P0 4.591  P1 0.01713  P2 7.184e-7
//	             decode: rms 1.7 %, max 4.3 % over 26 points; prefill: rms 6.0 %, max 9.6 %
//	llama3.2-1b: A0 1.040  E 1.359e-4  A1 0.8866 Bs 0.003749 C 9.304e-6  Q 7.40
//	             P0 2.980  P1 0.002347 P2 2.333e-7
//	             decode: rms 2.6 %, max 5.8 % over 28 points; prefill: rms 6.6 %, max 9.3 %
//
// The terms mean what they claim: for llama3-8b, Bs implies 2·7.5 GFLOP per
// token at 721 TFLOPS (measured matmul ceiling 761.5) and C implies KV reads
// at 4.08 TB/s (measured copy 4.244 TB/s) (TestFitRecoversCeilings).
// A step mixing decodes and prefill chunks costs decode(B, ΣL) plus the
// chunks' marginal prefill cost P1·c + P2·((o+c)² − o²): weights are
// streamed once per step, and chunking leaves a prompt's total attention
// cost unchanged. Real mixed batches overlap the two a little, so mixed
// steps are slightly pessimistic. Each step's time varies uniformly within
// ±3 % (seeded).
//
// # Profiles (profile.go)
//
//   - h200-llama3-8b (default): vLLM's defaults on a >= 70 GiB GPU,
//     max_num_seqs 1024 and max_num_batched_tokens 8192. KV cache
//     139.8 GiB × 0.9 − 15.01 GB weights − 2 GiB activations = 56,238 blocks
//     (899,808 tokens at 128 KiB each): KV never binds for chat-sized
//     requests, the knee comes from compute.
//   - h200-llama3.2-1b: same limits, 4.0 M KV tokens, ~1 ms steps.
//   - l4-llama3-8b: a 24 GB L4 (22.5 GiB usable), vLLM's small-GPU defaults
//     max_num_seqs 256 and max_num_batched_tokens 2048; 2,698 KV blocks
//     (43,168 tokens). Step times are the H200 fit scaled by roofline only:
//     memory terms (A0, E, A1, C, P0) × 16.0 = 4.8 TB/s ÷ 300 GB/s, matmul
//     terms (Bs, P1, P2) × 8.17 = 989 ÷ 121 dense BF16 TFLOPS (data-sheet
//     figures; assumes the L4 reaches the same share of its peaks as the
//     H200 did). Here the KV cache runs out near 160 concurrent requests of
//     150+128 tokens, before max_num_seqs: preemption makes the knee.
//   - hosted-api: the default server behind a gateway adding 120 ms, with
//     OpenAI tier-1 style limits of 500 requests/min and 200,000 tokens/min
//     (prompt + max_tokens) enforced over 1 s as OpenAI says it may ("60
//     RPM may be enforced as 1 request per second"): buckets of 8.3
//     requests and 3,333 tokens refilled continuously, answering 429 with
//     Retry-After, x-ratelimit-* headers and OpenAI's message. A request
//     larger than the token bucket passes when it is full and leaves it in
//     debt; one larger than the TPM limit gets "Request too large".
//   - soak-fast: the 1B profile at 10× speed, for long soak tests.
//
// # Workload realism
//
// Requests run to max_tokens (finish_reason "length", like ignore_eos),
// except EarlyStop = 10 % that end at EOS uniformly in the second half of
// their budget ("stop"). Without max_tokens the output is uniform in
// [128, 384) tokens. All draws come from the simulator seed and the
// request's Seed and ID, so runs are reproducible.
//
// # Where the default profile's knee is
//
// From the fitted decode model alone at the default workload's mean context
// (150 prompt + 64 generated ≈ 214 tokens), throughput elasticity between
// B/2 and B is 0.94 (32), 0.85 (64), 0.66 (128), 0.43 (256), 0.25 (512),
// 0.14 (1024). The full scheduler with prefills interleaved, closed loop of
// C clients sending 150-token prompts for 128 tokens (VirtualLoad,
// TestDefaultKnee):
//
//	C       1    8     32    64    128    256    512    1024   2048
//	tok/s   211  1637  5653  9339  13234  16414  18246  20565  20565
//	elast.       0.96  0.86  0.72  0.50   0.31   0.15   0.17   0.00
//	ITL ms  4.7  4.9   5.6   6.8   9.6    15.6   27.8   52.3   52.3
//	TTFT p50 ms  7.2 ... 12.1 (128), 18.6 (256), 34.6 (512), 120 (1024), 6747 (2048)
//
// Elasticity first drops below 0.2 between 256 and 512: a sweep of the
// default profile should put its knee at 256-512 concurrency, with
// ~16-18k output tok/s; past 1024 (max_num_seqs) throughput is flat and
// TTFT grows with the queue. A real-time sweep through the engine
// (5 s windows) measured 213, 1589, 9297, 13330, 16280 and 19199 tok/s at
// 1, 8, 64, 128, 256 and 512. The l4-llama3-8b knee is near 160 (KV
// exhaustion, ~1.3k tok/s); hosted-api's is where 500 RPM binds, 8.3 req/s
// (~1.1k tok/s), between 4 and 8 concurrent requests.
//
// # Cost
//
// BenchmarkStep1024: one step with 1,024 decoding sequences (context ~214,
// a Trace token recorded for each) costs ~60 µs of CPU against ~34 ms of
// simulated GPU time: 0.2 % of one core. The scheduler allocates nothing
// per step or token (TestCommitAllocatesNothing; the Trace's own gap buffer
// is the engine's), and the driver blocks when idle.
package sim
