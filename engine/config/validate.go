package config

import (
	"fmt"
	"github.com/kneepoint/kneepoint/engine"
	"net/url"
	"strings"
	"time"
)

// Validate reports the first impossible value, naming its key.
func (c Config) Validate() error {
	bad := func(key, format string, a ...any) error { return &Error{Key: key, Msg: fmt.Sprintf(format, a...)} }
	switch c.Target.Provider {
	case "sim", "openai":
	default:
		return bad("target.provider", "%q is not a provider (use \"sim\" or \"openai\")", c.Target.Provider)
	}
	if c.Target.Provider == "openai" && c.Target.BaseURL != "" {
		u, err := url.Parse(c.Target.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("target.base_url", "%q is not an http(s) URL", redactURL(c.Target.BaseURL))
		}
	}
	if c.Target.Timeout.D() <= 0 {
		return bad("target.timeout", "must be positive")
	}
	w := c.Workload
	if w.PromptTokens < 1 {
		return bad("workload.prompt_tokens", "%d: need at least 1", w.PromptTokens)
	}
	if w.MaxTokens < 1 {
		return bad("workload.max_tokens", "%d: need at least 1", w.MaxTokens)
	}
	if w.SharedPrefixTokens < 0 {
		return bad("workload.shared_prefix_tokens", "must not be negative")
	}
	if w.ThinkTime.D() < 0 {
		return bad("workload.think_time", "must not be negative")
	}
	if w.Temperature != nil && (*w.Temperature < 0 || *w.Temperature > 2) {
		return bad("workload.temperature", "%g is not between 0 and 2", *w.Temperature)
	}
	s := c.Sweep
	if len(s.Levels) == 0 {
		return bad("sweep.levels", "need at least one level")
	}
	for _, l := range s.Levels {
		if l < 1 {
			return bad("sweep.levels", "%d is not a positive concurrency", l)
		}
		if l > 100000 {
			return bad("sweep.levels", "%d is beyond what one process should hold (100000)", l)
		}
	}
	if s.RequestsPerLevel < 0 {
		return bad("sweep.requests_per_level", "must not be negative")
	}
	if s.RequestsPerLevel == 0 && s.Duration.D() <= 0 {
		return bad("sweep.duration", "must be positive (or set sweep.requests_per_level)")
	}
	if s.Warmup.D() < 0 {
		return bad("sweep.warmup", "must not be negative")
	}
	if s.RequestsPerLevel == 0 && s.Warmup.D() > s.Duration.D() {
		return bad("sweep.warmup", "%s is longer than the measurement window sweep.duration = %s", s.Warmup, s.Duration)
	}
	if s.StopAfterKnee < 0 {
		return bad("sweep.stop_after_knee", "must not be negative")
	}
	if s.MaxErrorShare < 0 || s.MaxErrorShare > 1 {
		return bad("sweep.max_error_share", "%g is not between 0 and 1", s.MaxErrorShare)
	}
	if s.MaxRetries < 0 || s.MaxRetries > 10 {
		return bad("sweep.max_retries", "%d is not between 0 and 10", s.MaxRetries)
	}
	if s.Grace.D() < 0 || s.Grace.D() > 10*time.Minute {
		return bad("sweep.grace", "%s is not between 0 and 10m", s.Grace)
	}
	if c.SLO.MaxErrorShare < 0 || c.SLO.MaxErrorShare > 1 {
		return bad("slo.max_error_share", "%g is not between 0 and 1", c.SLO.MaxErrorShare)
	}
	if c.SLO.AtConcurrency < 0 {
		return bad("slo.at_concurrency", "must not be negative")
	}
	for _, k := range []struct {
		key string
		d   Duration
	}{{"slo.ttft_p95", c.SLO.TTFTP95}, {"slo.ttft_p99", c.SLO.TTFTP99}, {"slo.tpot_p95", c.SLO.TPOTP95},
		{"slo.tpot_p99", c.SLO.TPOTP99}, {"slo.itl_p95", c.SLO.ITLP95}, {"slo.itl_p99", c.SLO.ITLP99},
		{"slo.latency_p95", c.SLO.LatencyP95}, {"slo.latency_p99", c.SLO.LatencyP99}} {
		if k.d.D() < 0 {
			return bad(k.key, "must not be negative")
		}
	}
	if c.Cost.InputPerMillion < 0 || c.Cost.OutputPerMillion < 0 || c.Cost.PerHour < 0 {
		return bad("cost", "prices must not be negative")
	}
	if c.FailOnSLO && (c.SLO == SLO{} || c.SLO.AtConcurrency == 0) {
		return bad("slo.at_concurrency", "--fail-on-slo needs [slo] objectives and at_concurrency")
	}
	for _, f := range c.Output.Files {
		if !strings.HasSuffix(f, ".json") && !strings.HasSuffix(f, ".md") && !strings.HasSuffix(f, ".csv") &&
			!strings.HasSuffix(f, ".svg") && !strings.HasSuffix(f, ".png") {
			return bad("output.files", "%q: the format follows the extension (.json, .md, .csv, .svg, .png)", f)
		}
	}
	return nil
}

// redactURL drops credentials from a URL before it is shown.
func redactURL(s string) string { return engine.RedactURL(s) }
