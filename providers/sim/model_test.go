package sim

import (
	"math"
	"sort"
	"testing"
)

// nelderMead minimises f from x0 (plain downhill simplex, restarted by the
// caller). Test-only: it documents how the shipped coefficients were fitted.
func nelderMead(f func([]float64) float64, x0 []float64, iters int) []float64 {
	n := len(x0)
	pts := make([][]float64, n+1)
	vals := make([]float64, n+1)
	for i := range pts {
		p := append([]float64(nil), x0...)
		if i > 0 {
			p[i-1] *= 1.2
			if p[i-1] == 0 {
				p[i-1] = 1e-3
			}
		}
		pts[i], vals[i] = p, f(p)
	}
	point := func(c, w []float64, k float64) []float64 {
		x := make([]float64, n)
		for j := range x {
			x[j] = c[j] + k*(w[j]-c[j])
		}
		return x
	}
	for it := 0; it < iters; it++ {
		idx := make([]int, n+1)
		for i := range idx {
			idx[i] = i
		}
		sort.Slice(idx, func(a, b int) bool { return vals[idx[a]] < vals[idx[b]] })
		np, nv := make([][]float64, n+1), make([]float64, n+1)
		for i, k := range idx {
			np[i], nv[i] = pts[k], vals[k]
		}
		pts, vals = np, nv
		c := make([]float64, n)
		for i := 0; i < n; i++ {
			for j := range c {
				c[j] += pts[i][j] / float64(n)
			}
		}
		xr := point(c, pts[n], -1)
		fr := f(xr)
		switch {
		case fr < vals[0]:
			xe := point(c, pts[n], -2)
			if fe := f(xe); fe < fr {
				pts[n], vals[n] = xe, fe
			} else {
				pts[n], vals[n] = xr, fr
			}
		case fr < vals[n-1]:
			pts[n], vals[n] = xr, fr
		default:
			xc := point(c, pts[n], 0.5)
			if fc := f(xc); fc < vals[n] {
				pts[n], vals[n] = xc, fc
			} else {
				for i := 1; i <= n; i++ {
					pts[i] = point(pts[0], pts[i], 0.5)
					vals[i] = f(pts[i])
				}
			}
		}
	}
	best := 0
	for i := range vals {
		if vals[i] < vals[best] {
			best = i
		}
	}
	return pts[best]
}

// refit fits the step model to cm by least squares on relative error,
// starting from m (the procedure that produced the shipped coefficients).
func refit(m StepModel, cm CalibratedModel) StepModel {
	dec := func(p []float64) StepModel {
		return StepModel{A0: p[0], E: p[1], A1: p[2], Bs: p[3], C: p[4], Q: p[5]}
	}
	obj := func(p []float64) float64 {
		if p[5] < 1 {
			return math.Inf(1)
		}
		mm := dec(p)
		var s float64
		for _, d := range cm.Decode {
			r := mm.DecodeMs(d.B, float64(d.B*d.L))/d.Ms - 1
			s += r * r
		}
		return s
	}
	p := []float64{m.A0, m.E, m.A1, m.Bs, m.C, m.Q}
	for range 4 {
		p = nelderMead(obj, p, 2000)
	}
	out := dec(p)
	pobj := func(q []float64) float64 {
		mm := StepModel{P0: q[0], P1: q[1], P2: q[2]}
		var s float64
		for _, d := range cm.Prefill {
			r := mm.PrefillMs(d.T)/d.Ms - 1
			s += r * r
		}
		return s
	}
	q := []float64{m.P0, m.P1, m.P2}
	for range 4 {
		q = nelderMead(pobj, q, 2000)
	}
	out.P0, out.P1, out.P2 = q[0], q[1], q[2]
	return out
}

// TestFitError pins how well the shipped step models reproduce the H200
// measurements, and that a fresh fit would not do meaningfully better.
func TestFitError(t *testing.T) {
	cal, err := LoadCalibration()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		model                      string
		m                          StepModel
		decodeMax, prefillMax, rms float64
	}{
		{"llama3-8b", h200Llama3_8B(), 0.05, 0.10, 0.02},
		{"llama3.2-1b", h200Llama32_1B(), 0.065, 0.10, 0.03},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			var cm *CalibratedModel
			for i := range cal.Models {
				if cal.Models[i].Model == tc.model {
					cm = &cal.Models[i]
				}
			}
			if cm == nil {
				t.Fatalf("model %s not in calibration json", tc.model)
			}
			fe := tc.m.Fit(*cm)
			t.Logf("shipped: decode rms %.2f%% max %.2f%%, prefill rms %.2f%% max %.2f%%",
				100*fe.DecodeRMS, 100*fe.DecodeMax, 100*fe.PrefillRMS, 100*fe.PrefillMax)
			if fe.DecodeMax > tc.decodeMax || fe.DecodeRMS > tc.rms {
				t.Errorf("decode fit: rms %.3f max %.3f, want rms <= %.3f max <= %.3f", fe.DecodeRMS, fe.DecodeMax, tc.rms, tc.decodeMax)
			}
			if fe.PrefillMax > tc.prefillMax {
				t.Errorf("prefill fit: max %.3f, want <= %.3f", fe.PrefillMax, tc.prefillMax)
			}
			if testing.Short() {
				return
			}
			rm := refit(tc.m, *cm)
			re := rm.Fit(*cm)
			t.Logf("refit: %+v (decode rms %.2f%% max %.2f%%, prefill rms %.2f%%)", rm, 100*re.DecodeRMS, 100*re.DecodeMax, 100*re.PrefillRMS)
			if fe.DecodeRMS > re.DecodeRMS+0.002 || fe.PrefillRMS > re.PrefillRMS+0.002 {
				t.Errorf("shipped coefficients are worse than a refit: shipped %+v, refit %+v", fe, re)
			}
		})
	}
}

// TestFitRecoversCeilings checks the fitted terms mean what doc.go says:
// the per-sequence matmul term and the per-context-token KV term imply the
// measured matmul rate and copy bandwidth within 15%.
func TestFitRecoversCeilings(t *testing.T) {
	cal, err := LoadCalibration()
	if err != nil {
		t.Fatal(err)
	}
	m := h200Llama3_8B()
	cm := cal.Models[0]
	tflops := 2 * cm.ParamsB * 1e9 / (m.Bs * 1e-3) / 1e12
	tbps := float64(cm.KVBytesPerToken) / (m.C * 1e-3) / 1e12
	t.Logf("implied matmul %.0f TFLOPS (measured %.1f), KV read %.2f TB/s (copy %.3f)", tflops, cal.Ceilings.MatmulTFLO, tbps, cal.Ceilings.CopyTBps)
	if r := tflops / cal.Ceilings.MatmulTFLO; r < 0.85 || r > 1.15 {
		t.Errorf("implied matmul rate off by %.2fx", r)
	}
	if r := tbps / cal.Ceilings.CopyTBps; r < 0.85 || r > 1.15 {
		t.Errorf("implied KV bandwidth off by %.2fx", r)
	}
}

// TestProfilesMatchCalibration checks the figures profiles copy from the
// calibration json.
func TestProfilesMatchCalibration(t *testing.T) {
	cal, err := LoadCalibration()
	if err != nil {
		t.Fatal(err)
	}
	byModel := map[string]CalibratedModel{}
	for _, m := range cal.Models {
		byModel[m.Model] = m
	}
	for _, name := range Profiles() {
		p, err := LookupProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		cm, ok := byModel[map[string]string{"hosted-llama3-8b": "llama3-8b"}[p.Model]]
		if !ok {
			cm, ok = byModel[p.Model]
		}
		if !ok {
			t.Errorf("%s: model %s not in calibration", name, p.Model)
			continue
		}
		if p.WeightGB != cm.WeightGB || p.KVBytesPerToken != cm.KVBytesPerToken {
			t.Errorf("%s: weights %v/%v kv bytes %v/%v", name, p.WeightGB, cm.WeightGB, p.KVBytesPerToken, cm.KVBytesPerToken)
		}
		t.Logf("%-18s KV %7d blocks = %8d tokens, max_num_seqs %d, batched tokens %d", name, p.KVBlocks, p.KVTokens(), p.MaxNumSeqs, p.MaxBatchedTokens)
	}
}
