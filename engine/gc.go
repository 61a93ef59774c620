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
// gave 8% more non-streaming requests/s at c=64, and a 512 MiB limit held
// 10,000 open streams at 474 MB resident instead of 737 MB.
const (
	tunedGCPercent = 400
	minMemLimit    = 512 << 20
	memPerStream   = 48 << 10 // resident bytes per open stream, measured at 10,000
)

// GCLimit is the soft memory limit TuneGC sets for a sweep whose highest
// level is maxConcurrency: 512 MiB, or 48 KiB per stream when that is more.
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
