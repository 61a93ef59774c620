//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package openai

import (
	"net"
	"syscall"
)

// canProbe: idle connections can be checked before reuse, so the lean
// client may be used (h1.go).
const canProbe = true

// closedOrUnasked reports whether an idle connection must not carry another
// request: the server closed or reset it, or wrote something nobody asked
// for (a proxy's 408 before it hangs up). It peeks without blocking; a
// connection with nothing to read is good.
func closedOrUnasked(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	bad := false
	var b [1]byte
	err = raw.Control(func(fd uintptr) {
		for {
			_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			if err == syscall.EINTR {
				continue
			}
			// EAGAIN: nothing to read, alive and quiet. No error: EOF or
			// unasked bytes. Anything else: reset or broken.
			bad = err != syscall.EAGAIN
			return
		}
	})
	return err != nil || bad
}
