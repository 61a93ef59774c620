package openai

import (
	"net/http"
	"time"
)

// Option configures a Provider (functional options; New validates the
// result and reports the first bad setting by name).
type Option func(*config)

// config is the provider's settings after options are applied.
type config struct {
	baseURL        string
	apiKey         string
	model          string
	stream         bool
	includeUsage   bool
	timeout        time.Duration
	maxConns       int
	http2          bool
	leanHTTP       bool
	systemPrompt   string
	sharedPrefix   int
	ignoreEOS      bool
	extraBody      map[string]any
	promptsFile    string
	temperature    *float64
	maxTokensField string
	httpClient     *http.Client
}

// Defaults. The request timeout is generous because under saturation a
// server legitimately takes minutes (TTFT of 89 s is a published figure);
// it exists so a hung server cannot hold a worker forever.
const (
	DefaultTimeout  = 5 * time.Minute
	DefaultMaxConns = 1024
)

func defaults() config {
	return config{
		baseURL:        DefaultBaseURL,
		stream:         true,
		includeUsage:   true,
		timeout:        DefaultTimeout,
		maxConns:       DefaultMaxConns,
		leanHTTP:       true,
		maxTokensField: "max_tokens",
	}
}

// WithBaseURL sets the endpoint, e.g. http://127.0.0.1:8000/v1. A trailing
// /chat/completions is tolerated and removed; "" keeps DefaultBaseURL.
func WithBaseURL(u string) Option {
	return func(c *config) {
		if u != "" {
			c.baseURL = u
		}
	}
}

// WithAPIKey sets the bearer key; empty sends no Authorization header.
func WithAPIKey(k string) Option { return func(c *config) { c.apiKey = k } }

// WithModel sets the model name sent with every request.
func WithModel(m string) Option { return func(c *config) { c.model = m } }

// WithStream chooses streaming (default) or non-streaming requests. Without
// streaming TTFT equals end-to-end latency and ITL is not measured.
func WithStream(on bool) Option { return func(c *config) { c.stream = on } }

// WithIncludeUsage controls stream_options.include_usage (default on);
// turn it off for servers that reject stream_options.
func WithIncludeUsage(on bool) Option { return func(c *config) { c.includeUsage = on } }

// WithTimeout bounds one whole request, body included (0: no bound beyond
// the run's context).
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithMaxConns sizes the connection pool: set it to the highest concurrency
// of the sweep so every in-flight request keeps its own warm connection.
func WithMaxConns(n int) Option { return func(c *config) { c.maxConns = n } }

// WithHTTP2 allows HTTP/2: negotiated by ALPN for https://, prior-knowledge
// h2c for http://. Off by default (see transport.go for why).
func WithHTTP2(on bool) Option { return func(c *config) { c.http2 = on } }

// WithLeanHTTP chooses kneepoint's own HTTP/1.1 client for plain http://
// endpoints (default on; about half the client CPU per request, see h1.go)
// or, off, Go's net/http for every request.
func WithLeanHTTP(on bool) Option { return func(c *config) { c.leanHTTP = on } }

// WithSystemPrompt adds a fixed system message to synthetic prompts.
func WithSystemPrompt(s string) Option { return func(c *config) { c.systemPrompt = s } }

// WithSharedPrefix makes the first n of the prompt's tokens a system prompt
// common to all requests, to measure prefix caching (0: every prompt is
// distinct so caches do not flatter the result).
func WithSharedPrefix(n int) Option { return func(c *config) { c.sharedPrefix = n } }

// WithIgnoreEOS sends "ignore_eos": true (vLLM, SGLang, llama.cpp) so every
// request generates exactly max_tokens.
func WithIgnoreEOS(on bool) Option { return func(c *config) { c.ignoreEOS = on } }

// WithExtraBody merges fields into every request body, overriding the
// provider's own (e.g. {"top_k": 20, "chat_template_kwargs": {...}}).
func WithExtraBody(m map[string]any) Option { return func(c *config) { c.extraBody = m } }

// WithPromptsFile replays real traffic shapes from a JSONL file; each line
// is {"messages":[...]} or {"prompt":"..."}, optionally with "max_tokens".
// Request i uses line i mod n.
func WithPromptsFile(path string) Option { return func(c *config) { c.promptsFile = path } }

// WithTemperature sends a sampling temperature (0 is sent, not omitted).
func WithTemperature(t float64) Option { return func(c *config) { c.temperature = &t } }

// WithMaxTokensField names the output-length field: "max_tokens" (default;
// llama.cpp ignores the newer name) or "max_completion_tokens" (required by
// OpenAI's reasoning models).
func WithMaxTokensField(name string) Option { return func(c *config) { c.maxTokensField = name } }

// WithHTTPClient replaces the tuned client entirely (tests, custom TLS).
// The caller then owns pooling and redirects, and Conns reports zeros.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.httpClient = hc } }
