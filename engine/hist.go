package engine

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1 µs to 1 hour with 3 significant digits (0.1% relative
// error). Three digits, not two, because TTFT is compared against scripted
// delays to well under a millisecond.
const (
	histMinMicros = 1
	histMaxMicros = int64(time.Hour / time.Microsecond)
	histSigFigs   = 3
)

// hist is an HDR histogram of durations plus the exact count, sum and max,
// so means (and Little's law) are exact while percentiles stay bounded in
// memory whatever the number of samples.
type hist struct {
	h   *hdrhistogram.Histogram
	n   int64
	sum time.Duration
	max time.Duration
}

func newHist() *hist {
	return &hist{h: hdrhistogram.New(histMinMicros, histMaxMicros, histSigFigs)}
}

// liveSigFigs is the precision of the dashboard's live-window histograms:
// two digits (1%) is plenty for a chart, and makes the per-snapshot merge,
// done under the stats lock that the closed loop's workers also take, about
// eight times cheaper than at three.
const liveSigFigs = 2

func newLiveHist() *hist {
	return &hist{h: hdrhistogram.New(histMinMicros, histMaxMicros, liveSigFigs)}
}

func (h *hist) record(d time.Duration) {
	us := int64(d / time.Microsecond)
	if us < histMinMicros {
		us = histMinMicros
	} else if us > histMaxMicros {
		us = histMaxMicros
	}
	_ = h.h.RecordValue(us) // in range by construction
	h.n++
	h.sum += d
	if d > h.max {
		h.max = d
	}
}

func (h *hist) merge(o *hist) {
	h.h.Merge(o.h)
	h.n += o.n
	h.sum += o.sum
	if o.max > h.max {
		h.max = o.max
	}
}

func (h *hist) reset() {
	h.h.Reset()
	h.n, h.sum, h.max = 0, 0, 0
}

var distQuantiles = []float64{50, 90, 95, 99}

// dist summarises the histogram in milliseconds.
func (h *hist) dist() Dist {
	if h.n == 0 {
		return Dist{}
	}
	v := h.h.ValueAtPercentilesSlice(distQuantiles)
	maxMs := float64(h.max) / float64(time.Millisecond)
	// HDR reports the top of a value's bucket; never above the exact max.
	ms := func(us int64) float64 { return min(float64(us)/1000, maxMs) }
	return Dist{
		Count: h.n,
		P50:   ms(v[0]),
		P90:   ms(v[1]),
		P95:   ms(v[2]),
		P99:   ms(v[3]),
		Max:   maxMs,
		Mean:  float64(h.sum) / float64(h.n) / float64(time.Millisecond),
	}
}
