package sim

import "math"

// StepModel prices one engine step (one forward pass of the whole batch) in
// milliseconds. Its shape is a soft roofline fitted to the H200 measurements
// in calibration/h200-dense-llm.json (see doc.go for the fit and its error):
//
//	decode(B, ΣL) = (x^Q + y^Q)^(1/Q)
//	    x = A0 + E·L̄            latency floor: weights streamed once per step,
//	                             plus single-sequence attention over mean context L̄
//	    y = A1 + Bs·B + C·ΣL     throughput branch: matmul work per sequence (Bs)
//	                             and KV-cache reads per context token (C)
//	prefill(T) = P0 + P1·T + P2·T²  (weights, matmul per token, attention)
//
// A step that mixes decodes with prefill chunks costs decode(B, ΣL) plus the
// prefill's marginal terms P1·c + P2·((o+c)² − o²) for each chunk of c tokens
// at context offset o: the weights are streamed once per step, so P0 is only
// paid by a step with no decodes, and chunking a prompt leaves its total
// attention cost P2·T² unchanged. That additive split is an approximation:
// a real mixed batch overlaps some of the two costs, so mixed steps are
// priced slightly pessimistically.
type StepModel struct {
	A0, E, A1, Bs, C, Q float64
	P0, P1, P2          float64
}

// Scaled returns the model for another GPU by roofline scaling: terms that
// stream memory (weights, KV reads: A0, E, A1, C, P0) are multiplied by mem,
// the H200's bandwidth over the target's; matmul terms (Bs, P1, P2) by
// compute, the H200's matmul rate over the target's.
func (m StepModel) Scaled(mem, compute float64) StepModel {
	return StepModel{
		A0: m.A0 * mem, E: m.E * mem, A1: m.A1 * mem, C: m.C * mem,
		Bs: m.Bs * compute, Q: m.Q,
		P0: m.P0 * mem, P1: m.P1 * compute, P2: m.P2 * compute,
	}
}

// DecodeMs is the time of a step that decodes batch sequences whose context
// lengths sum to sumCtx.
func (m *StepModel) DecodeMs(batch int, sumCtx float64) float64 {
	if batch <= 0 {
		return 0
	}
	b := float64(batch)
	x := m.A0 + m.E*sumCtx/b
	y := m.A1 + m.Bs*b + m.C*sumCtx
	if y <= 0 {
		return x
	}
	return math.Pow(math.Pow(x, m.Q)+math.Pow(y, m.Q), 1/m.Q)
}

// PrefillMs is the time of a prefill-only step of t prompt tokens from a
// standing start (the calibration's prefill measurement).
func (m *StepModel) PrefillMs(t int) float64 {
	f := float64(t)
	return m.P0 + m.P1*f + m.P2*f*f
}

// StepMs prices a step from its aggregates: decodes sequences with context
// lengths summing to sumCtx, plus prefill chunks totalling chunkTokens whose
// attention term Σ((o+c)² − o²) is quad.
func (m *StepModel) StepMs(decodes int, sumCtx, chunkTokens, quad float64) float64 {
	t := m.P1*chunkTokens + m.P2*quad
	if decodes > 0 {
		return m.DecodeMs(decodes, sumCtx) + t
	}
	if chunkTokens > 0 {
		return m.P0 + t
	}
	return 0
}
