package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kneepoint/kneepoint/providers/rxtime"
)

// Why delay mode times its hold from the kernel's receive time of the
// request: timed from when the handler ran, the hold would start late by
// the server's own wake-up, which a busy machine makes milliseconds, and
// that lateness would show up in the client's TTFT as if the client had
// added it. From the request's arrival, the first byte leaves at arrival
// plus the scripted delay, and what the endpoint reports as late is all of
// its own share.

// listen sets up ln and hs for the mode: in delay mode, holds start when
// the request arrived. The other modes keep plain reads, the cheapest
// server possible.
func (s *server) listen(ln net.Listener, hs *http.Server) net.Listener {
	if s.cfg.mode != modeDelay {
		return ln
	}
	hs.ConnContext = connContext
	return stampedListener{ln}
}

// stampedListener wraps accepted connections so a handler can learn when
// its request arrived.
type stampedListener struct{ net.Listener }

func (l stampedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &stampedConn{Conn: c, rx: rxtime.New(c)}, nil
}

// stampedConn reads through rxtime and keeps the latest read's arrival.
type stampedConn struct {
	net.Conn
	rx rxtime.Reader

	mu sync.Mutex // the server's background read may run beside the handler
	at time.Time
}

func (c *stampedConn) Read(p []byte) (int, error) {
	n, err := c.rx.Read(p)
	if n > 0 {
		at := c.rx.Arrived()
		c.mu.Lock()
		c.at = at
		c.mu.Unlock()
	}
	return n, err
}

// CloseWrite keeps the server's graceful half-close, which embedding the
// net.Conn interface would hide.
func (c *stampedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}

func (c *stampedConn) arrived() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

type stampKey struct{}

// connContext lets handlers find their connection (http.Server.ConnContext).
func connContext(ctx context.Context, c net.Conn) context.Context {
	if sc, ok := c.(*stampedConn); ok {
		return context.WithValue(ctx, stampKey{}, sc)
	}
	return ctx
}

// arrival is when the request r (read to its end) arrived, or fallback
// when the connection does not say.
func arrival(r *http.Request, fallback time.Time) time.Time {
	sc, ok := r.Context().Value(stampKey{}).(*stampedConn)
	if !ok {
		return fallback
	}
	if at := sc.arrived(); !at.IsZero() && at.Before(fallback) {
		return at
	}
	return fallback
}
