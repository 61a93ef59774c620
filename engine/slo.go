package engine

import (
	"fmt"
	"time"
)

// SLO is a set of service-level objectives. Zero fields are unset. The
// percentile bounds judge a level; the tightest bound on each metric also
// judges each request for goodput, as DistServe and vLLM define it: a
// request is good when its TTFT, TPOT and end-to-end latency all meet their
// bounds.
type SLO struct {
	TTFTP95Ms     float64 `json:"ttft_p95_ms,omitempty"`
	TTFTP99Ms     float64 `json:"ttft_p99_ms,omitempty"`
	TPOTP95Ms     float64 `json:"tpot_p95_ms,omitempty"`
	TPOTP99Ms     float64 `json:"tpot_p99_ms,omitempty"`
	ITLP95Ms      float64 `json:"itl_p95_ms,omitempty"`
	ITLP99Ms      float64 `json:"itl_p99_ms,omitempty"`
	LatencyP95Ms  float64 `json:"latency_p95_ms,omitempty"`
	LatencyP99Ms  float64 `json:"latency_p99_ms,omitempty"`
	MaxErrorShare float64 `json:"max_error_share,omitempty"`
	// AtConcurrency is where the SLOs must hold for --fail-on-slo.
	AtConcurrency int `json:"at_concurrency,omitempty"`
}

// IsZero reports whether no objective is set.
func (s SLO) IsZero() bool {
	s.AtConcurrency = 0
	return s == SLO{}
}

// requestBounds are the per-request bounds used for goodput (0: unset).
func (s SLO) requestBounds() (ttft, tpot, e2e time.Duration) {
	tight := func(a, b float64) time.Duration {
		switch {
		case a == 0:
			return time.Duration(b * float64(time.Millisecond))
		case b == 0:
			return time.Duration(a * float64(time.Millisecond))
		}
		return time.Duration(min(a, b) * float64(time.Millisecond))
	}
	return tight(s.TTFTP95Ms, s.TTFTP99Ms), tight(s.TPOTP95Ms, s.TPOTP99Ms), tight(s.LatencyP95Ms, s.LatencyP99Ms)
}

// good reports whether one successful request meets every per-request bound.
func (s SLO) good(tr *Trace) bool {
	ttft, tpot, e2e := s.requestBounds()
	if ttft > 0 && tr.TTFT() > ttft {
		return false
	}
	if e2e > 0 && tr.E2E() > e2e {
		return false
	}
	if tpot > 0 {
		if v, ok := tr.TPOT(); ok && v > tpot {
			return false
		}
	}
	return true
}

// Check judges a level against every objective and lists the misses.
func (s SLO) Check(l LevelResult) (ok bool, misses []string) {
	if l.Succeeded == 0 {
		return false, []string{"no successful requests"}
	}
	check := func(name string, got, bound float64) {
		if bound > 0 && got > bound {
			misses = append(misses, fmt.Sprintf("%s %.1f ms > %.1f ms", name, got, bound))
		}
	}
	check("TTFT p95", l.TTFT.P95, s.TTFTP95Ms)
	check("TTFT p99", l.TTFT.P99, s.TTFTP99Ms)
	check("TPOT p95", l.TPOT.P95, s.TPOTP95Ms)
	check("TPOT p99", l.TPOT.P99, s.TPOTP99Ms)
	check("ITL p95", l.ITL.P95, s.ITLP95Ms)
	check("ITL p99", l.ITL.P99, s.ITLP99Ms)
	check("latency p95", l.Latency.P95, s.LatencyP95Ms)
	check("latency p99", l.Latency.P99, s.LatencyP99Ms)
	if s.MaxErrorShare > 0 && l.ErrorShare() > s.MaxErrorShare {
		misses = append(misses, fmt.Sprintf("error share %.2f%% > %.2f%%", 100*l.ErrorShare(), 100*s.MaxErrorShare))
	}
	return len(misses) == 0, misses
}

// SLOVerdict is the answer --fail-on-slo acts on.
type SLOVerdict struct {
	AtConcurrency int      `json:"at_concurrency"`
	Met           bool     `json:"met"`
	Misses        []string `json:"misses,omitempty"`
	Note          string   `json:"note,omitempty"`
}

// Cost holds token and hourly prices. Token prices are what a hosted API
// charges; PerHour is what a self-hosted endpoint costs to run, which makes
// the cost per token fall as throughput rises — the comparison the user's
// notes ask for (cost per effective throughput, not only speed).
type Cost struct {
	InputPerMillion  float64 `json:"input_per_million,omitempty"`
	OutputPerMillion float64 `json:"output_per_million,omitempty"`
	PerHour          float64 `json:"per_hour,omitempty"`
	Currency         string  `json:"currency,omitempty"`
}

// IsZero reports whether no price is set.
func (c Cost) IsZero() bool {
	return c.InputPerMillion == 0 && c.OutputPerMillion == 0 && c.PerHour == 0
}

// apply fills a level's cost figures: per request and per million output
// tokens, from token prices plus the hourly price spread over the level's
// goodput-free throughput.
func (c Cost) apply(l *LevelResult) {
	if c.IsZero() || l.Succeeded == 0 || l.OutputTokens == 0 {
		return
	}
	tokenCost := (float64(l.InputTokens)*c.InputPerMillion + float64(l.OutputTokens)*c.OutputPerMillion) / 1e6
	hourCost := c.PerHour * l.DurationS / 3600
	total := tokenCost + hourCost
	l.CostPerRequest = total / float64(l.Succeeded)
	l.CostPerMOutput = total / float64(l.OutputTokens) * 1e6
}

// judge fills the SLO figures of the results: per-level verdicts, the
// highest concurrency meeting every objective, and the verdict at
// AtConcurrency.
func (s SLO) judge(res *Results) {
	if s.IsZero() {
		return
	}
	sc := s
	res.SLO = &sc
	for i := range res.Levels {
		l := &res.Levels[i]
		ok, misses := s.Check(*l)
		l.SLOMet, l.SLOMisses = &ok, misses
		if ok && l.Source == SourcePlan && l.Concurrency > res.SLOMaxConcurrency {
			res.SLOMaxConcurrency = l.Concurrency
		}
	}
	if s.AtConcurrency == 0 {
		return
	}
	v := &SLOVerdict{AtConcurrency: s.AtConcurrency}
	res.SLOVerdict = v
	for _, l := range res.Levels {
		if l.Concurrency == s.AtConcurrency && l.Source == SourcePlan {
			v.Met, v.Misses = s.Check(l)
			return
		}
	}
	v.Note = fmt.Sprintf("no planned level at c=%d was measured", s.AtConcurrency)
}
