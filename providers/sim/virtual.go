package sim

import (
	"math"
	"sort"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// LoadResult is what a closed-loop load on virtual time measured.
type LoadResult struct {
	Concurrency   int
	Requests      int // completed in the window
	OutputTokPerS float64
	RequestsPerS  float64
	TTFTMean      time.Duration
	TTFTP50       time.Duration
	TTFTP99       time.Duration
	E2EMean       time.Duration
	ITLMean       time.Duration
	MeanRunning   float64 // time-weighted over the window
	MeanWaiting   float64
	Preemptions   uint64 // in the window
	MaxKVUsage    float64
}

// VirtualLoad predicts what a closed-loop client holding concurrency
// requests of promptTokens/maxTokens in flight would measure against
// profile p: it drives the scheduler directly on virtual time (no
// goroutines, no sleeping), discards warmup and measures requests that
// finish within window. Gateway effects (FrontendDelay, rate limits) are
// not included: this is the GPU server's physics only. Runs in
// milliseconds, so it serves tests and the knee figures in doc.go.
func VirtualLoad(p Profile, concurrency, promptTokens, maxTokens int, warmup, window time.Duration, seed int64) LoadResult {
	res := LoadResult{Concurrency: concurrency}
	if concurrency < 1 || p.validate() != nil {
		return res
	}
	s := &Sim{prof: p, seed: seed} // only for newSeq
	c := newCore(p, seed)
	t0 := time.Unix(0, 0)
	now := t0
	wStart, wEnd := t0.Add(warmup), t0.Add(warmup+window)
	var nextID uint64
	clients := make([]*seq, concurrency)
	submit := func(i int) {
		nextID++
		q, _, err := s.newSeq(engine.Request{ID: nextID, Seed: seed, PromptTokens: promptTokens, MaxTokens: maxTokens}, false)
		if err != nil {
			clients[i] = nil
			return
		}
		q.tr = &engine.Trace{}
		q.tr.Start(now)
		q.arrived = now
		c.add(q)
		clients[i] = q
	}
	for i := range clients {
		submit(i)
	}
	var ttfts []time.Duration
	var e2e, itl time.Duration
	var itlN int
	var outTok int
	var runArea, waitArea float64
	var preBase uint64
	measuring := false
	for now.Before(wEnd) {
		if !measuring && !now.Before(wStart) {
			measuring, preBase = true, c.stats.preemptions
		}
		pl := c.plan()
		if pl.scheduled == 0 {
			if pl.preempted > 0 {
				continue
			}
			break // nothing can run: every request was invalid
		}
		end := now.Add(pl.dur)
		if measuring {
			runArea += float64(len(c.running)) * pl.dur.Seconds()
			waitArea += float64(c.nWaiting) * pl.dur.Seconds()
			res.MaxKVUsage = math.Max(res.MaxKVUsage, c.kvUsage())
		}
		c.commit(end)
		now = end
		for i, q := range clients {
			if q == nil || q.state != stateDone {
				continue
			}
			if measuring {
				tr := q.tr
				n, _ := tr.OutputTokens()
				outTok += n
				ttfts = append(ttfts, tr.TTFT())
				e2e += tr.E2E()
				for _, g := range tr.Gaps() {
					itl += g
				}
				itlN += len(tr.Gaps())
				res.Requests++
			}
			submit(i)
		}
	}
	if !measuring {
		return res
	}
	span := now.Sub(wStart).Seconds()
	res.Preemptions = c.stats.preemptions - preBase
	if span > 0 {
		res.OutputTokPerS = float64(outTok) / span
		res.RequestsPerS = float64(res.Requests) / span
		res.MeanRunning = runArea / span
		res.MeanWaiting = waitArea / span
	}
	if n := len(ttfts); n > 0 {
		var sum time.Duration
		for _, d := range ttfts {
			sum += d
		}
		sort.Slice(ttfts, func(a, b int) bool { return ttfts[a] < ttfts[b] })
		res.TTFTMean = sum / time.Duration(n)
		res.TTFTP50 = ttfts[n/2]
		res.TTFTP99 = ttfts[min(n-1, n*99/100)]
		res.E2EMean = e2e / time.Duration(n)
	}
	if itlN > 0 {
		res.ITLMean = itl / time.Duration(itlN)
	}
	return res
}
