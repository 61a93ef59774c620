//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package openai

import (
	"net"
	"syscall"
)

// canProbe: idle connections can be checked before reuse, so the lean
// client may be used (h1.go).
const canProbe = true

// prober checks one idle connection before reuse. It is made once per
// connection (the RawConn and the bound callback), so a check is one
// non-blocking peek and no allocation on the per-request path.
type prober struct {
	raw  syscall.RawConn
	peek func(fd uintptr) // p.recv, bound once
	bad  bool
	b    [1]byte
}

// newProber returns nil when conn exposes no socket (then nothing is
// checked).
func newProber(conn net.Conn) *prober {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	p := &prober{raw: raw}
	p.peek = p.recv
	return p
}

func (p *prober) recv(fd uintptr) {
	for {
		_, _, err := syscall.Recvfrom(int(fd), p.b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		if err == syscall.EINTR {
			continue
		}
		// EAGAIN: nothing to read, alive and quiet. No error: EOF or
		// unasked bytes. Anything else: reset or broken.
		p.bad = err != syscall.EAGAIN
		return
	}
}

// closedOrUnasked reports whether the idle connection must not carry
// another request: the server closed or reset it, or wrote something
// nobody asked for (a proxy's 408 before it hangs up). A connection with
// nothing to read is good.
func (p *prober) closedOrUnasked() bool {
	if p == nil {
		return false
	}
	p.bad = false
	return p.raw.Control(p.peek) != nil || p.bad
}
