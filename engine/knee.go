package engine

import (
	"fmt"
	"math"
)

// KneeRule holds the knee detector's thresholds. The defaults come from the
// issue's starting rule, checked against published sweeps (NVIDIA NIM
// Llama-3.1-8B: elasticities 1.00 .91 .78 .61 .15 .09 -.13 put the knee at
// c=100) and the simulator's calibrated profiles.
type KneeRule struct {
	MaxErrorShare  float64 // hard: a level's error share above this
	MinKeepShare   float64 // hard: throughput below this share of the best earlier level
	MaxElasticity  float64 // soft: dlnX/dlnC below this...
	LatElasticity  float64 // ...and dlnR/dlnC above this
	PlateauShare   float64 // ...or X within this share of the best earlier level
	SoftToConfirm  int     // soft triggers in a row that confirm a knee
	RateLimitShare float64 // 429 share of requests above which the cause is rate limiting
	// FlatElasticity: a soft trigger whose throughput elasticity is below
	// this while latency grows nearly in proportion (elasticity above
	// FlatLatElasticity) confirms on its own. That is Little's law at
	// saturation (R ∝ C/X): more clients only queue. With windows of a few
	// hundred requests, throughput noise is a few percent, moving an
	// elasticity over a doubling by about ±0.05, so a level still growing
	// at the soft threshold (0.2) does not read as flat.
	FlatElasticity    float64
	FlatLatElasticity float64
}

// DefaultKneeRule is the rule kneepoint uses unless told otherwise.
func DefaultKneeRule() KneeRule {
	return KneeRule{
		MaxErrorShare:     0.02,
		MinKeepShare:      0.90,
		MaxElasticity:     0.20,
		LatElasticity:     0.50,
		PlateauShare:      0.05,
		SoftToConfirm:     2,
		RateLimitShare:    0.01,
		FlatElasticity:    0.10,
		FlatLatElasticity: 0.80,
	}
}

// curvePoints are the planned levels the detector looks at, in sweep order:
// one per concurrency, a complete measurement preferred over a cut one.
func curvePoints(levels []LevelResult) []LevelResult {
	var pts []LevelResult
	for _, l := range levels {
		if l.Source != SourcePlan || l.Requests == 0 {
			continue
		}
		if n := len(pts); n > 0 && pts[n-1].Concurrency == l.Concurrency {
			if l.Complete || !pts[n-1].Complete {
				pts[n-1] = l
			}
			continue
		}
		if n := len(pts); n > 0 && l.Concurrency < pts[n-1].Concurrency {
			continue // a sweep's curve runs upwards
		}
		pts = append(pts, l)
	}
	return pts
}

// elasticity is dln(b/a)/dln(cb/ca), the log-log slope between two levels.
// Elasticities, not Kneedle on a log axis (which returns C=1), find the knee.
func elasticity(a, b float64, ca, cb int) float64 {
	if a <= 0 || b <= 0 || ca <= 0 || cb <= ca {
		return math.NaN()
	}
	return math.Log(b/a) / math.Log(float64(cb)/float64(ca))
}

// DetectKnee finds the saturation point of a sweep online, as levels
// complete. X is successful output tok/s, R the p95 end-to-end latency, e the
// error share. A level triggers hard when e > MaxErrorShare or X falls below
// MinKeepShare of the best earlier X; soft when the throughput elasticity is
// below MaxElasticity and either the latency elasticity exceeds
// LatElasticity or X is within PlateauShare of the best. One hard trigger,
// SoftToConfirm soft ones in a row, or a flat one (see FlatElasticity)
// confirm the knee: the last level before the first trigger. It returns nil and a note when no knee is confirmed.
func DetectKnee(levels []LevelResult, rule KneeRule) (*Knee, string) {
	pts := curvePoints(levels)
	if len(pts) == 0 {
		return nil, "no completed level yet"
	}
	best := pts[0].OutputTokPerS
	first, soft := -1, 0
	for k := 1; k < len(pts); k++ {
		p, q := pts[k-1], pts[k]
		x := q.OutputTokPerS
		hard := q.ErrorShare() > rule.MaxErrorShare || (best > 0 && x < rule.MinKeepShare*best)
		ex := elasticity(p.OutputTokPerS, x, p.Concurrency, q.Concurrency)
		er := elasticity(p.Latency.P95, q.Latency.P95, p.Concurrency, q.Concurrency)
		isSoft := !math.IsNaN(ex) && ex < rule.MaxElasticity &&
			(er > rule.LatElasticity || x <= (1+rule.PlateauShare)*best)
		switch {
		case best <= 0:
			// nothing succeeded yet: no curve to bend
		case hard:
			if first < 0 {
				first = k
			}
			return pts[first-1].knee(pts, first, k, "hard", rule), ""
		case isSoft:
			if first < 0 {
				first, soft = k, 0
			}
			soft++
			if soft >= rule.SoftToConfirm {
				return pts[first-1].knee(pts, first, k, "soft", rule), ""
			}
			if ex < rule.FlatElasticity && er > rule.FlatLatElasticity {
				return pts[first-1].knee(pts, first, k, "flat", rule), ""
			}
		default:
			first, soft = -1, 0
		}
		best = max(best, x)
	}
	if best <= 0 {
		return nil, "no successful requests: no knee"
	}
	last := pts[len(pts)-1]
	if first >= 0 {
		return nil, fmt.Sprintf("no knee confirmed up to c=%d (throughput flattening from c=%d)", last.Concurrency, pts[first].Concurrency)
	}
	return nil, fmt.Sprintf("no knee up to c=%d", last.Concurrency)
}

// knee builds the Knee at level l (= pts[first-1]) given the trigger levels
// pts[first..confirm].
func (l LevelResult) knee(pts []LevelResult, first, confirm int, trigger string, rule KneeRule) *Knee {
	k := &Knee{Concurrency: l.Concurrency, Level: l.Index, Trigger: trigger, Cause: "capacity"}
	var rl, req, fail int64
	for _, q := range pts[first : confirm+1] {
		rl += q.RateLimited
		req += q.Requests
		fail += q.Failed
	}
	switch {
	case req > 0 && float64(rl)/float64(req) > rule.RateLimitShare:
		k.Cause = "rate_limit"
	case req > 0 && float64(fail)/float64(req) > rule.MaxErrorShare:
		k.Cause = "errors"
	}
	q := pts[first]
	ex := elasticity(l.OutputTokPerS, q.OutputTokPerS, l.Concurrency, q.Concurrency)
	k.Reason = fmt.Sprintf("from c=%d to c=%d throughput %+.0f%% (elasticity %.2f) while p95 latency %+.0f%%",
		l.Concurrency, q.Concurrency, pct(l.OutputTokPerS, q.OutputTokPerS), ex, pct(l.Latency.P95, q.Latency.P95))
	if q.Failed > 0 {
		k.Reason += fmt.Sprintf(", errors %.1f%% (429: %d)", 100*q.ErrorShare(), q.RateLimited)
	}
	k.Reason += fmt.Sprintf("; confirmed at c=%d (%s)", pts[confirm].Concurrency, trigger)
	best := 0.0
	for _, p := range pts[:confirm+1] {
		if v := p.OutputTokPerS * p.OutputTokPerS / float64(p.Concurrency); v > best {
			best, k.BestX2C = v, p.Concurrency
		}
	}
	return k
}

func pct(a, b float64) float64 {
	if a == 0 {
		return 0
	}
	return 100 * (b - a) / a
}
