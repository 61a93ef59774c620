//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package openai

import "net"

// closedOrUnasked cannot peek here: an idle connection the server closed is
// found when the request's write fails, and the request is sent again on a
// fresh connection (h1.go).
func closedOrUnasked(net.Conn) bool { return false }
