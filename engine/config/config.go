// Package config reads kneepoint's TOML configuration and command-line
// flags into one validated Config. Flags override the file. Every error
// names the key and, where it came from a file, the file and line, so that a
// bad config costs the user one glance, never a stack trace.
package config

import (
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// Config is the whole configuration; sample.toml documents every key.
type Config struct {
	Target   Target   `toml:"target"`
	Workload Workload `toml:"workload"`
	Sweep    Sweep    `toml:"sweep"`
	SLO      SLO      `toml:"slo"`
	Cost     Cost     `toml:"cost"`
	UI       UI       `toml:"ui"`
	Output   Output   `toml:"output"`

	// Set from flags only.
	Headless  bool   `toml:"-"`
	FailOnSLO bool   `toml:"-"`
	File      string `toml:"-"` // the config file read, if any
	text      string // its text, to point errors at lines
}

// Target says what to measure.
type Target struct {
	Provider   string   `toml:"provider"`    // "sim" or "openai"
	SimProfile string   `toml:"sim_profile"` // simulator profile
	BaseURL    string   `toml:"base_url"`
	Model      string   `toml:"model"`
	APIKeyEnv  string   `toml:"api_key_env"` // variable holding the key
	Timeout    Duration `toml:"timeout"`     // per request
	HTTP2      bool     `toml:"http2"`
	LeanHTTP   bool     `toml:"lean_http"`  // kneepoint's own HTTP/1.1 client for http://
	SkipCheck  bool     `toml:"skip_check"` // don't list models before the sweep
}

// Workload is the request shape.
type Workload struct {
	PromptTokens       int            `toml:"prompt_tokens"`
	MaxTokens          int            `toml:"max_tokens"`
	SystemPrompt       string         `toml:"system_prompt"`
	SharedPrefixTokens int            `toml:"shared_prefix_tokens"`
	Stream             bool           `toml:"stream"`
	IgnoreEOS          bool           `toml:"ignore_eos"`
	Temperature        *float64       `toml:"temperature"`
	PromptsFile        string         `toml:"prompts_file"`
	ExtraBody          map[string]any `toml:"extra_body"`
	ThinkTime          Duration       `toml:"think_time"`
}

// Sweep is the plan.
type Sweep struct {
	Levels           []int    `toml:"levels"`
	Warmup           Duration `toml:"warmup"`
	Duration         Duration `toml:"duration"`
	RequestsPerLevel int      `toml:"requests_per_level"`
	StopAfterKnee    int      `toml:"stop_after_knee"`
	MaxErrorShare    float64  `toml:"max_error_share"`
	MaxRetries       int      `toml:"max_retries"`
	RetryAfterCap    Duration `toml:"retry_after_cap"`
	Grace            Duration `toml:"grace"`
	Seed             int64    `toml:"seed"`
}

// SLO holds service-level objectives; zero values are unset.
type SLO struct {
	TTFTP95       Duration `toml:"ttft_p95"`
	TTFTP99       Duration `toml:"ttft_p99"`
	TPOTP95       Duration `toml:"tpot_p95"`
	TPOTP99       Duration `toml:"tpot_p99"`
	ITLP95        Duration `toml:"itl_p95"`
	ITLP99        Duration `toml:"itl_p99"`
	LatencyP95    Duration `toml:"latency_p95"`
	LatencyP99    Duration `toml:"latency_p99"`
	MaxErrorShare float64  `toml:"max_error_share"`
	AtConcurrency int      `toml:"at_concurrency"`
}

// Cost holds optional token prices in currency units per million tokens.
type Cost struct {
	InputPerMillion  float64 `toml:"input_per_million"`
	OutputPerMillion float64 `toml:"output_per_million"`
	PerHour          float64 `toml:"per_hour"`
	Currency         string  `toml:"currency"`
}

// UI configures the dashboard.
type UI struct {
	Theme string `toml:"theme"`
}

// Output names the files a run writes; the format follows the extension.
type Output struct {
	Files []string `toml:"files"`
}

// Default is the configuration `go run .` uses: the built-in simulator's
// default profile and the user's sample workload.
func Default() Config {
	p := engine.DefaultPlan()
	return Config{
		Target: Target{Provider: "sim", SimProfile: "h200-llama3-8b", APIKeyEnv: "OPENAI_API_KEY",
			Timeout: Duration(120 * time.Second), LeanHTTP: true},
		Workload: Workload{PromptTokens: 150, MaxTokens: 128, Stream: true},
		Sweep: Sweep{
			Levels: p.Levels, Warmup: Duration(p.Warmup), Duration: Duration(p.Duration),
			StopAfterKnee: p.StopAfterKnee, MaxErrorShare: p.MaxErrorShare,
			RetryAfterCap: Duration(p.RetryAfterCap), Grace: Duration(p.Grace), Seed: 1,
		},
		UI: UI{Theme: "dark"},
	}
}

// Plan is the engine's sweep plan.
func (c Config) Plan() engine.Plan {
	p := engine.DefaultPlan()
	p.Levels = c.Sweep.Levels
	p.Warmup = c.Sweep.Warmup.D()
	p.Duration = c.Sweep.Duration.D()
	p.RequestsPerLevel = c.Sweep.RequestsPerLevel
	if p.RequestsPerLevel > 0 {
		p.Duration = 0
	}
	p.StopAfterKnee = c.Sweep.StopAfterKnee
	p.MaxErrorShare = c.Sweep.MaxErrorShare
	p.MaxRetries = c.Sweep.MaxRetries
	p.RetryAfterCap = c.Sweep.RetryAfterCap.D()
	p.Grace = c.Sweep.Grace.D()
	p.ThinkTime = c.Workload.ThinkTime.D()
	return p
}

// EngineSLO is the objectives in the engine's units.
func (c Config) EngineSLO() engine.SLO {
	ms := func(d Duration) float64 { return float64(d) / float64(time.Millisecond) }
	s := c.SLO
	return engine.SLO{
		TTFTP95Ms: ms(s.TTFTP95), TTFTP99Ms: ms(s.TTFTP99), TPOTP95Ms: ms(s.TPOTP95), TPOTP99Ms: ms(s.TPOTP99),
		ITLP95Ms: ms(s.ITLP95), ITLP99Ms: ms(s.ITLP99), LatencyP95Ms: ms(s.LatencyP95), LatencyP99Ms: ms(s.LatencyP99),
		MaxErrorShare: s.MaxErrorShare, AtConcurrency: s.AtConcurrency,
	}
}

// EngineCost is the prices in the engine's form.
func (c Config) EngineCost() engine.Cost {
	return engine.Cost{InputPerMillion: c.Cost.InputPerMillion, OutputPerMillion: c.Cost.OutputPerMillion,
		PerHour: c.Cost.PerHour, Currency: c.Cost.Currency}
}

// EngineWorkload is the request shape as reported in results.
func (c Config) EngineWorkload() engine.Workload {
	return engine.Workload{
		PromptTokens: c.Workload.PromptTokens, MaxTokens: c.Workload.MaxTokens, Stream: c.Workload.Stream,
		ThinkTimeMs: c.Workload.ThinkTime.D().Milliseconds(),
	}
}
