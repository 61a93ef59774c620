package openai

import "time"

// Why kneepoint timestamps bytes by when they arrived, not when it read them.
//
// A chunk's time is the moment the client saw it. Reading it takes a
// goroutine wake-up after the kernel has the bytes: microseconds on an
// idle machine, milliseconds when a thousand streams deliver at once or the
// harness shares its cores with the server. That delay is the client's,
// not the server's, yet it would land in TTFT, ITL and end-to-end latency.
// On Linux the lean client reads with the kernel's receive time of each
// read (providers/rxtime), so the figures exclude the harness's own
// scheduling; elsewhere, and through net/http, the time the read returned
// is used.

// clock says when the bytes most recently read arrived.
type clock interface{ arrival() time.Time }

// wallClock is the time now: the read has just returned.
type wallClock struct{}

func (wallClock) arrival() time.Time { return time.Now() }
