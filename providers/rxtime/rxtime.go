// Package rxtime reads TCP connections noting when the bytes of each read
// arrived: the kernel's software receive time (SO_TIMESTAMPNS) on Linux,
// the time the read returned elsewhere.
//
// Why: a latency measured at the moment a goroutine got round to reading
// includes that goroutine's wake-up, which on a busy machine is
// milliseconds. The kernel's receive time does not. kneepoint's lean
// HTTP/1.1 client stamps chunks with it, and bench/endpoints times its
// scripted delays from it.
package rxtime

import (
	"io"
	"net"
	"time"
)

// Reader reads a connection and remembers when the bytes of its latest
// read arrived.
type Reader interface {
	io.Reader
	// Arrived is when the bytes of the latest read arrived, on Go's
	// monotonic clock; zero before the first read or when the platform
	// does not say.
	Arrived() time.Time
}

// plain reads without arrival times.
type plain struct{ net.Conn }

func (plain) Arrived() time.Time { return time.Time{} }

// maxAge bounds how far before the read a kernel timestamp may lie:
// anything older means the wall clock stepped between the two readings,
// and the read's own time is used instead.
const maxAge = 10 * time.Second

// arrivalBefore converts a kernel receive time (wall clock) into a time on
// Go's monotonic clock, given now read just after the bytes were taken.
func arrivalBefore(now, kernel time.Time) time.Time {
	d := now.Sub(kernel) // wall clock on both sides: kernel has no monotonic reading
	if d < 0 || d > maxAge {
		return now
	}
	return now.Add(-d)
}
