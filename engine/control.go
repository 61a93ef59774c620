package engine

// Controller steers a running sweep. The dashboard binds keys to it; every
// method is safe to call from any goroutine and returns at once.
//
// Any change of concurrency mid-run puts the run in a manual hold at the new
// level, recorded as its own segment (source "manual") and as an event.
type Controller interface {
	SetConcurrency(n int)       // hold at n (n >= 1)
	AddConcurrency(delta int)   // hold at target+delta (at least 1)
	ScaleConcurrency(f float64) // hold at round(target*f) (at least 1)
	Resume()                    // leave a manual hold: the sweep resumes at the next planned level
	TogglePause()               // stop/resume sending; in-flight requests finish
	NextLevel()                 // end the current level now and go to the next
	Stop(reason string)         // finish: in-flight requests get a grace period, then are cancelled
}
