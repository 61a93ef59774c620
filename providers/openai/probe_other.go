//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package openai

import "net"

// canProbe: without a non-blocking peek an idle connection the server
// closed would still take the next request's write and fail it (or hand it
// a stray 408), so the lean client is not used here: net/http's pending
// read notices such closes (leanEligible).
const canProbe = false

type prober struct{}

func newProber(net.Conn) *prober      { return nil }
func (*prober) closedOrUnasked() bool { return false }
