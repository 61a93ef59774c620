//go:build !linux

package openai

import "net"

// newArrivalReader: receive timestamps are read on Linux only; elsewhere
// arrival times come from the clock when the read returns.
func newArrivalReader(conn net.Conn) arrivalReader { return plainReader{conn} }
