package engine

import (
	"math"
	"strings"
	"testing"
)

// curve builds plan levels from concurrencies and throughputs; p95 latency
// follows Little's law for a closed loop (R ∝ C/X), errors as given.
func curve(cs []int, xs []float64, fails ...int64) []LevelResult {
	var ls []LevelResult
	for i, c := range cs {
		l := LevelResult{Index: i, Concurrency: c, Source: SourcePlan, Complete: true, Requests: 1000, Succeeded: 1000,
			OutputTokPerS: xs[i]}
		l.Latency.P95 = 1000 * float64(c) / xs[i] * 128
		if i < len(fails) {
			l.Failed = fails[i]
			l.Succeeded -= fails[i]
		}
		ls = append(ls, l)
	}
	return ls
}

// fromElasticities reconstructs a throughput curve from per-step
// elasticities, as published sweeps report them.
func fromElasticities(cs []int, x0 float64, el []float64) []float64 {
	xs := []float64{x0}
	for i, e := range el {
		xs = append(xs, xs[i]*math.Pow(float64(cs[i+1])/float64(cs[i]), e))
	}
	return xs
}

func TestDetectKnee(t *testing.T) {
	nimC := []int{1, 10, 25, 50, 100, 150, 200, 250}
	nimX := fromElasticities(nimC, 215, []float64{1.00, .91, .78, .61, .15, .09, -.13})
	tests := []struct {
		name    string
		levels  []LevelResult
		want    int // 0: no knee
		cause   string
		trigger string
	}{
		{"NIM Llama-3.1-8B published sweep", curve(nimC, nimX), 100, "capacity", "soft"},
		{"linear: no knee", curve([]int{1, 2, 4, 8}, []float64{100, 200, 400, 800}), 0, "", ""},
		{"one soft step is not enough", curve([]int{1, 2, 4, 8}, []float64{100, 200, 400, 440}), 0, "", ""},
		{"throughput collapse is hard", curve([]int{1, 2, 4, 8}, []float64{100, 200, 400, 300}), 4, "capacity", "hard"},
		{"errors past 2% are hard", curve([]int{1, 2, 4, 8}, []float64{100, 200, 400, 790}, 0, 0, 0, 50), 4, "errors", "hard"},
		{"flat from the start", curve([]int{1, 2, 4, 8}, []float64{100, 101, 102, 103}), 1, "capacity", "flat"},
		{"flat while latency doubles confirms at once", curve([]int{128, 256, 512, 1024},
			[]float64{13315, 16371, 19552, 19541}), 512, "capacity", "flat"},
		{"H200 8B decode data (tok/s at L=512)", curve([]int{32, 64, 128, 256, 512, 1024},
			[]float64{6057, 10846, 15130, 20723, 22517, 22600}), 256, "capacity", "soft"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, note := DetectKnee(tt.levels, DefaultKneeRule())
			if tt.want == 0 {
				if k != nil {
					t.Fatalf("knee at c=%d, want none", k.Concurrency)
				}
				if !strings.Contains(note, "no knee") {
					t.Errorf("note %q does not say no knee", note)
				}
				return
			}
			if k == nil {
				t.Fatalf("no knee (%s), want c=%d", note, tt.want)
			}
			if k.Concurrency != tt.want || k.Cause != tt.cause || k.Trigger != tt.trigger {
				t.Errorf("knee c=%d cause=%s trigger=%s, want c=%d %s %s (%s)", k.Concurrency, k.Cause, k.Trigger, tt.want, tt.cause, tt.trigger, k.Reason)
			}
		})
	}
}

func TestKneeCauseRateLimit(t *testing.T) {
	ls := curve([]int{1, 2, 4, 8}, []float64{100, 200, 210, 212})
	ls[2].RateLimited, ls[2].Failed = 100, 100
	ls[3].RateLimited, ls[3].Failed = 300, 300
	k, _ := DetectKnee(ls, DefaultKneeRule())
	if k == nil || k.Concurrency != 2 || k.Cause != "rate_limit" {
		t.Fatalf("got %+v, want knee at c=2 caused by rate limiting", k)
	}
}

func TestKneeNoSuccess(t *testing.T) {
	ls := curve([]int{1, 2}, []float64{0, 0}, 1000, 1000)
	k, note := DetectKnee(ls, DefaultKneeRule())
	if k != nil || !strings.Contains(note, "no successful") {
		t.Fatalf("got %+v %q", k, note)
	}
}

func TestBestX2C(t *testing.T) {
	nimC := []int{1, 10, 25, 50, 100, 150, 200, 250}
	nimX := fromElasticities(nimC, 215, []float64{1.00, .91, .78, .61, .15, .09, -.13})
	k, _ := DetectKnee(curve(nimC, nimX), DefaultKneeRule())
	if k == nil || k.BestX2C != 100 { // X²/C grows while elasticity > 0.5
		t.Fatalf("X²/C best = %+v", k)
	}
}
