//go:build !unix

package engine

import "time"

// cpuTime is unknown on this platform; the CPU share then reads 0.
func cpuTime() time.Duration { return 0 }
