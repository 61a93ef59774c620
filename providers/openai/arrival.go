package openai

import (
	"io"
	"net"
	"time"
)

// Why kneepoint timestamps bytes by when they arrived, not when it read them.
//
// A chunk's time is the moment the client saw it. Reading it takes a
// goroutine wake-up after the kernel has the bytes: microseconds on an
// idle machine, milliseconds when a thousand streams deliver at once or the
// harness shares its cores with the server. That delay is the client's,
// not the server's, yet it lands in TTFT, ITL and end-to-end latency. On
// Linux the lean client asks the kernel for each read's receive time
// (SO_TIMESTAMPNS, arrival_linux.go), so the figures exclude the harness's
// own scheduling; elsewhere, and through net/http, the time the read
// returned is used.

// clock says when the bytes most recently read arrived.
type clock interface{ arrival() time.Time }

// wallClock is the time now: the read has just returned.
type wallClock struct{}

func (wallClock) arrival() time.Time { return time.Now() }

// arrivalReader reads a connection and remembers when the bytes of its
// latest read arrived (zero when the platform does not say).
type arrivalReader interface {
	io.Reader
	arrived() time.Time
}

// plainReader reads without arrival times.
type plainReader struct{ net.Conn }

func (plainReader) arrived() time.Time { return time.Time{} }

// maxArrivalAge bounds how far before the read a kernel timestamp may lie:
// anything older means the wall clock stepped between the two readings,
// and the read's own time is used instead.
const maxArrivalAge = 10 * time.Second

// arrivalBefore converts a kernel receive time (wall clock) into a time
// on Go's monotonic clock, given now read just after the bytes were taken.
func arrivalBefore(now, kernel time.Time) time.Time {
	d := now.Sub(kernel) // wall clock on both sides: kernel has no monotonic reading
	if d < 0 || d > maxArrivalAge {
		return now
	}
	return now.Add(-d)
}
