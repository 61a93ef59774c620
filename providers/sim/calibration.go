package sim

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
)

// calibrationJSON is a copy of the H200 measurements the step models were
// fitted to (shared/calibration/h200-dense-llm.json).
//
//go:embed calibration/h200-dense-llm.json
var calibrationJSON []byte

// Calibration is the measured data: decode step times by batch size B and
// context length L, and prefill times by prompt length T.
type Calibration struct {
	GPU      string  `json:"gpu"`
	MemGiB   float64 `json:"mem_GiB"`
	Ceilings struct {
		CopyTBps   float64 `json:"copy_TBps"`
		MatmulTFLO float64 `json:"bf16_matmul_TFLOPs"`
	} `json:"ceilings"`
	Models []CalibratedModel `json:"models"`
}

// CalibratedModel holds one model's measurements.
type CalibratedModel struct {
	Model           string  `json:"model"`
	ParamsB         float64 `json:"params_B"`
	WeightGB        float64 `json:"weight_GB"`
	KVBytesPerToken int     `json:"kv_bytes_per_token"`
	Decode          []struct {
		B  int     `json:"B"`
		L  int     `json:"L"`
		Ms float64 `json:"ms"`
	} `json:"decode"`
	Prefill []struct {
		T  int     `json:"T"`
		Ms float64 `json:"ms"`
	} `json:"prefill"`
}

// LoadCalibration parses the embedded measurements.
func LoadCalibration() (Calibration, error) {
	var c Calibration
	if err := json.Unmarshal(calibrationJSON, &c); err != nil {
		return c, fmt.Errorf("sim: calibration json: %w", err)
	}
	return c, nil
}

// FitError is how well a step model reproduces one model's measurements:
// relative errors (model/measured - 1), root-mean-square and worst case.
type FitError struct {
	DecodeRMS, DecodeMax   float64
	PrefillRMS, PrefillMax float64
}

// Fit compares m against the measurements in cm.
func (m StepModel) Fit(cm CalibratedModel) FitError {
	var fe FitError
	var s float64
	for _, d := range cm.Decode {
		r := m.DecodeMs(d.B, float64(d.B*d.L))/d.Ms - 1
		s += r * r
		fe.DecodeMax = max(fe.DecodeMax, math.Abs(r))
	}
	if n := len(cm.Decode); n > 0 {
		fe.DecodeRMS = math.Sqrt(s / float64(n))
	}
	s = 0
	for _, p := range cm.Prefill {
		r := m.PrefillMs(p.T)/p.Ms - 1
		s += r * r
		fe.PrefillMax = max(fe.PrefillMax, math.Abs(r))
	}
	if n := len(cm.Prefill); n > 0 {
		fe.PrefillRMS = math.Sqrt(s / float64(n))
	}
	return fe
}
