package engine

import (
	"fmt"
	"runtime/debug"
)

// GC policy for a load generator. Every request allocates a few kilobytes
// while the live heap stays small (a few MB at c=64), so at Go's default
// GOGC=100 the collector runs dozens of times a second; at 10,000 streams
// the live heap is a few hundred MB and the default goal, twice that,
// takes resident memory towards 1 GiB. A higher GOGC with a soft memory
// limit fixes both: measured with bench/compare.sh on 2 cores, GOGC=400
// gave 8% more non-streaming requests/s at c=64, and 10,000 open streams
// stay under the limit instead of reaching 740 MB. The limit leaves room
// above the live memory of open streams (about 40 KiB each with their
// goroutines): a limit barely above it (48 KiB each) made the collector
// run nearly continuously and doubled kneepoint's CPU at 10,000 streams.
const (
	tunedGCPercent = 400
	minMemLimit    = 512 << 20
	memPerStream   = 64 << 10 // per open stream: ~40 KiB live plus GC headroom
)

// GCLimit is the soft memory limit TuneGC sets for a sweep whose highest
// level is maxConcurrency: 512 MiB, or 64 KiB per stream when that is more.
func GCLimit(maxConcurrency int) int64 {
	return max(int64(minMemLimit), int64(maxConcurrency)*memPerStream)
}

// TuneGC sets the collector for a sweep up to maxConcurrency (see above),
// leaving alone whatever the user set with GOGC or GOMEMLIMIT. Call it
// once from main before the run; it returns a description of what it set
// ("" when nothing).
func TuneGC(maxConcurrency int, getenv func(string) string) string {
	var set []string
	if getenv("GOGC") == "" {
		debug.SetGCPercent(tunedGCPercent)
		set = append(set, fmt.Sprintf("GOGC=%d", tunedGCPercent))
	}
	if getenv("GOMEMLIMIT") == "" {
		lim := GCLimit(maxConcurrency)
		debug.SetMemoryLimit(lim)
		set = append(set, fmt.Sprintf("GOMEMLIMIT=%dMiB", lim>>20))
	}
	if len(set) == 0 {
		return ""
	}
	return fmt.Sprint(set)
}
