package ui

import "time"

// errSpan is how far back the "now" error rate looks.
const errSpan = 5 * time.Second

// counterMark is the run's success and failure counts at one snapshot.
type counterMark struct {
	at         time.Duration
	ok, failed int64
}

// errWindow keeps the last few counter marks in a fixed array (so copying
// a Model copies it, keeping Update pure) to turn whole-run counters into
// a recent error rate.
type errWindow struct {
	marks [24]counterMark
	n     int
}

func (w *errWindow) push(at time.Duration, ok, failed int64) {
	if w.n == len(w.marks) {
		copy(w.marks[:], w.marks[1:])
		w.n--
	}
	w.marks[w.n] = counterMark{at, ok, failed}
	w.n++
}

// share is the failed share of requests that completed over roughly the
// last errSpan; ok is false when nothing completed in that time.
func (w *errWindow) share() (share float64, ok bool) {
	if w.n < 2 {
		return 0, false
	}
	last := w.marks[w.n-1]
	first := w.marks[0]
	for i := w.n - 2; i >= 0; i-- {
		first = w.marks[i]
		if last.at-first.at >= errSpan {
			break
		}
	}
	dOK, dFail := last.ok-first.ok, last.failed-first.failed
	if dOK+dFail <= 0 {
		return 0, false
	}
	return float64(dFail) / float64(dOK+dFail), true
}
