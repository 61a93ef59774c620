//go:build !linux

package rxtime

import "net"

// New: receive timestamps are read on Linux only; elsewhere Arrived is
// zero and callers use the clock when the read returns.
func New(conn net.Conn) Reader { return plain{conn} }
