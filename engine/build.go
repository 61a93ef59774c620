package engine

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// results assembles the whole run. stopReason is non-empty when the run was
// stopped before its plan ended: the results are then marked partial.
func (r *Run) results(stopReason string) Results {
	res := Results{
		Schema:        SchemaV1,
		Version:       r.cfg.version,
		StartedAt:     r.start.UTC(),
		DurationS:     time.Since(r.start).Seconds(),
		Partial:       stopReason != "",
		PartialReason: stopReason,
		Seed:          r.cfg.seed,
		Target:        r.cfg.target,
		Workload:      r.cfg.workload,
		Plan: PlanJSON{
			Levels: r.plan.Levels, WarmupS: r.plan.Warmup.Seconds(), DurationS: r.plan.Duration.Seconds(),
			RequestsPerLevel: r.plan.RequestsPerLevel, StopAfterKnee: r.plan.StopAfterKnee, MaxErrorShare: r.plan.MaxErrorShare,
		},
		Levels:   r.levels,
		Knee:     r.knee,
		KneeNote: r.note,
		Events:   r.changes,
		Warnings: append([]string(nil), r.cfg.warnings...),
	}
	if res.Levels == nil {
		res.Levels = []LevelResult{}
	}
	if res.Events == nil {
		res.Events = []Change{}
	}
	if res.Warnings == nil {
		res.Warnings = []string{}
	}
	if d, ok := r.p.(Describer); ok && res.Target == (Target{}) {
		res.Target = d.Describe()
	}
	res.Workload.ThinkTimeMs = r.plan.ThinkTime.Milliseconds()
	r.cfg.slo.judge(&res)
	if !r.cfg.cost.IsZero() {
		c := r.cfg.cost
		res.Cost = &c
		for i := range res.Levels {
			c.apply(&res.Levels[i])
		}
	}
	res.Warnings = append(res.Warnings, levelWarnings(res.Levels)...)
	var ok int64
	for _, l := range res.Levels {
		ok += l.Succeeded
	}
	if len(res.Levels) > 0 && ok == 0 {
		note := "every request failed: no latency or throughput could be measured"
		if res.KneeNote != "" && !strings.HasPrefix(res.KneeNote, "no successful requests") {
			note += "; " + res.KneeNote
		}
		res.KneeNote = note
	}
	return res
}

// levelWarnings flags figures a reader should not trust blindly: a Little's
// law mismatch, a harness that lagged, token counts that were estimated.
func levelWarnings(levels []LevelResult) []string {
	var w []string
	for _, l := range levels {
		// With a handful of completions the window's edges alone make the
		// two sides differ; the check means something from ~20 on.
		if l.MeanInFlight > 0 && l.LittleInFlight > 0 && l.Requests >= 20 {
			if gap := math.Abs(l.LittleInFlight-l.MeanInFlight) / l.MeanInFlight; gap > 0.10 {
				w = append(w, fmt.Sprintf("c=%d: Little's law check off by %.0f%% (throughput x latency = %.1f, mean in-flight = %.1f)",
					l.Concurrency, 100*gap, l.LittleInFlight, l.MeanInFlight))
			}
		}
		if l.DispatchLagMs > float64(clientBoundLag/time.Millisecond) {
			w = append(w, fmt.Sprintf("c=%d: client-bound: p99 dispatch lag %.1f ms", l.Concurrency, l.DispatchLagMs))
		}
		if l.TokensEstimated {
			w = append(w, fmt.Sprintf("c=%d: output tokens counted from chunks (server sent no usage): estimated", l.Concurrency))
		}
	}
	return w
}
