package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// DefaultProfile is the profile `go run .` measures.
const DefaultProfile = "h200-llama3-8b"

// Profile is one simulated server: the GPU's step-time model, vLLM's
// scheduler limits, the KV-cache budget and (for hosted-api) provider-style
// rate limits. LookupProfile returns the built-in ones with KVBlocks derived.
type Profile struct {
	Name        string
	Description string
	// Model is the served model name (what /v1/models lists).
	Model string
	GPU   string
	Step  StepModel

	// vLLM scheduler limits.
	MaxNumSeqs       int // running sequences per step (max_num_seqs)
	MaxBatchedTokens int // tokens per step (max_num_batched_tokens); prompts are chunked to fit
	MaxModelLen      int // prompt + output limit of one request
	BlockSize        int // KV block size in tokens

	// KV-cache budget as vLLM derives it: total memory × utilisation,
	// minus weights and an activation reserve, divided by bytes per token.
	MemGiB          float64
	GPUMemUtil      float64
	WeightGB        float64 // 1e9 bytes
	ActivationGiB   float64
	KVBytesPerToken int
	// KVBlocks is derived from the figures above (override to experiment).
	KVBlocks int

	// Workload realism.
	EarlyStop        float64       // share of requests that end early with finish_reason "stop"
	Jitter           float64       // step time varies uniformly within ±Jitter
	TimeScale        float64       // multiplies every step time (1 = real GPU speed)
	FrontendDelay    time.Duration // API gateway latency before the request reaches the scheduler
	DefaultMaxTokens int           // output budget when a request sets none

	// Provider-style rate limits (0 = off): requests and tokens per minute.
	// Tokens are prompt + max_tokens, counted when the request is accepted,
	// as OpenAI does. RateBurst is the period the limits are enforced over:
	// the buckets hold RateBurst's share of a minute's allowance (0 or >= 1
	// minute: a whole minute's), so short sweeps meet the limit too.
	RPM, TPM  int
	RateBurst time.Duration
}

// KVTokens is the KV-cache capacity in tokens.
func (p Profile) KVTokens() int { return p.KVBlocks * p.BlockSize }

// derivedKVBlocks computes the KV budget the way vLLM sizes its cache.
func (p Profile) derivedKVBlocks() int {
	const gib = 1 << 30
	free := p.MemGiB*gib*p.GPUMemUtil - p.WeightGB*1e9 - p.ActivationGiB*gib
	per := float64(p.KVBytesPerToken * p.BlockSize)
	if free <= 0 || per <= 0 {
		return 0
	}
	return int(free / per)
}

// Fitted H200 step models (see doc.go and model_test.go for the fit).

// h200Llama3_8B: decode rms 1.7 %, max 4.3 %; prefill rms 6.0 %.
func h200Llama3_8B() StepModel {
	return StepModel{
		A0: 4.42483, E: 3.66322e-4, A1: 3.32316, Bs: 0.0208299, C: 3.21429e-5, Q: 5.16225,
		P0: 4.59128, P1: 0.0171316, P2: 7.18412e-7,
	}
}

// h200Llama32_1B: decode rms 2.6 %, max 5.8 %; prefill rms 6.6 %.
func h200Llama32_1B() StepModel {
	return StepModel{
		A0: 1.03950, E: 1.35922e-4, A1: 0.886611, Bs: 0.00374946, C: 9.30441e-6, Q: 7.40235,
		P0: 2.97953, P1: 0.00234677, P2: 2.33261e-7,
	}
}

// Roofline ratios H200 → L4 from the vendors' data sheets:
// H200 SXM 4.8 TB/s HBM3e and 989 dense BF16 TFLOPS; L4 300 GB/s GDDR6 and
// 121 dense BF16 TFLOPS (242 with sparsity). Spec-to-spec ratios assume the
// L4 reaches the same fraction of its peaks as the measured H200 (4.244 of
// 4.8 TB/s, 761.5 of 989 TFLOPS).
const (
	l4MemRatio     = 4800.0 / 300.0 // 16.0
	l4ComputeRatio = 989.0 / 121.0  // 8.17
)

// base holds what every built-in profile shares.
func base(name, desc string) Profile {
	return Profile{
		Name: name, Description: desc,
		BlockSize:        16,
		GPUMemUtil:       0.9,
		EarlyStop:        0.1,
		Jitter:           0.03,
		TimeScale:        1,
		DefaultMaxTokens: 256,
	}
}

// onH200 sets the H200 figures and vLLM's defaults for GPUs with >= 70 GiB
// that are not A100s (API server): 1024 sequences, 8192 tokens per step.
func onH200(p Profile) Profile {
	p.GPU = "NVIDIA H200 (141 GB; 139.8 GiB usable)"
	p.MemGiB = 139.8 // calibration json mem_GiB
	p.MaxNumSeqs = 1024
	p.MaxBatchedTokens = 8192
	return p
}

// llama3_8B sets the model figures of the calibration json.
func llama3_8B(p Profile) Profile {
	p.Model = "llama3-8b"
	p.WeightGB = 15.01
	p.KVBytesPerToken = 131072
	p.MaxModelLen = 8192
	p.ActivationGiB = 2
	return p
}

func llama32_1B(p Profile) Profile {
	p.Model = "llama3.2-1b"
	p.WeightGB = 2.47
	p.KVBytesPerToken = 32768
	p.MaxModelLen = 131072
	p.ActivationGiB = 1
	return p
}

// builtinProfiles returns a fresh copy of every built-in profile (there is
// no package-level mutable table).
func builtinProfiles() []Profile {
	def := llama3_8B(onH200(base("h200-llama3-8b",
		"Llama-3-8B BF16 on one H200, vLLM defaults: the knee comes from compute, KV never binds")))
	def.Step = h200Llama3_8B()

	small := llama32_1B(onH200(base("h200-llama3.2-1b",
		"Llama-3.2-1B BF16 on one H200: millisecond steps, saturates late")))
	small.Step = h200Llama32_1B()

	l4 := llama3_8B(base("l4-llama3-8b",
		"Llama-3-8B BF16 on one 24 GB L4 (roofline-scaled from H200): KV-cache exhaustion and preemption cause the knee"))
	l4.GPU = "NVIDIA L4 (24 GB; 22.5 GiB usable)"
	l4.MemGiB = 22.5
	l4.Step = h200Llama3_8B().Scaled(l4MemRatio, l4ComputeRatio)
	l4.MaxNumSeqs = 256 // vLLM's defaults for smaller GPUs (API server)
	l4.MaxBatchedTokens = 2048
	l4.ActivationGiB = 1

	hosted := llama3_8B(onH200(base("hosted-api",
		"a hosted API (H200 Llama-3-8B behind a gateway) with OpenAI tier-1 style limits: 500 RPM, 200k TPM")))
	hosted.Model = "hosted-llama3-8b"
	hosted.Step = h200Llama3_8B()
	hosted.FrontendDelay = 120 * time.Millisecond
	hosted.RPM = 500
	hosted.TPM = 200000
	hosted.RateBurst = time.Second // OpenAI: "60 RPM may be enforced as 1 request per second"

	soak := llama32_1B(onH200(base("soak-fast",
		"Llama-3.2-1B on H200 at 10x speed: many cheap requests for long memory soak tests")))
	soak.Step = h200Llama32_1B()
	soak.TimeScale = 0.1

	ps := []Profile{def, small, l4, hosted, soak}
	for i := range ps {
		ps[i].KVBlocks = ps[i].derivedKVBlocks()
	}
	return ps
}

// Profiles lists the built-in profile names, default first.
func Profiles() []string {
	ps := builtinProfiles()
	names := make([]string, 0, len(ps))
	for _, p := range ps {
		if p.Name != DefaultProfile {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return append([]string{DefaultProfile}, names...)
}

// LookupProfile returns the built-in profile called name ("" means the
// default). The error lists the valid names.
func LookupProfile(name string) (Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	for _, p := range builtinProfiles() {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("sim: unknown profile %q (have %s)", name, strings.Join(Profiles(), ", "))
}

// validate reports the first setting that would make the simulation
// meaningless, naming it.
func (p Profile) validate() error {
	switch {
	case p.MaxNumSeqs < 1:
		return fmt.Errorf("sim: profile %q: MaxNumSeqs must be >= 1", p.Name)
	case p.MaxBatchedTokens < 1:
		return fmt.Errorf("sim: profile %q: MaxBatchedTokens must be >= 1", p.Name)
	case p.BlockSize < 1:
		return fmt.Errorf("sim: profile %q: BlockSize must be >= 1", p.Name)
	case p.KVBlocks < 1:
		return fmt.Errorf("sim: profile %q: no KV cache (KVBlocks %d)", p.Name, p.KVBlocks)
	case p.MaxModelLen < 2:
		return fmt.Errorf("sim: profile %q: MaxModelLen must be >= 2", p.Name)
	case p.TimeScale <= 0:
		return fmt.Errorf("sim: profile %q: TimeScale must be > 0", p.Name)
	case p.Jitter < 0 || p.Jitter >= 1:
		return fmt.Errorf("sim: profile %q: Jitter must be in [0, 1)", p.Name)
	case p.EarlyStop < 0 || p.EarlyStop > 1:
		return fmt.Errorf("sim: profile %q: EarlyStop must be in [0, 1]", p.Name)
	case p.RPM < 0 || p.TPM < 0 || p.RateBurst < 0:
		return fmt.Errorf("sim: profile %q: rate limits must not be negative", p.Name)
	}
	return nil
}
