package openai

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kneepoint/kneepoint/providers/rxtime"
)

// Why kneepoint has its own HTTP/1.1 client for plain http:// endpoints.
//
// net/http's client runs every connection as two goroutines (readLoop and
// writeLoop) and hands each request and response between them and the
// caller over channels: a request costs several goroutine wake-ups on top
// of its two syscalls. On this project's 2-core machine, a bare loop of
// 64 goroutines against a trivial loopback endpoint used 33 µs of client
// CPU per request through net/http and 16 µs writing the request and
// reading the response on its own goroutine; the whole of kneepoint now
// uses 38-44 µs per request where hey, on net/http, uses 57-67
// (bench/compare.sh, target 1; BenchmarkLoopbackNonStream compares the two
// paths in-process). A load generator that spends that CPU competes with
// the server it measures when both share a machine, as local vLLM and
// llama.cpp setups do.
//
// The lean client is used only where net/http would add nothing: http://
// (no TLS), no proxy for the URL, no credentials in it, HTTP/2 off and no
// caller-supplied client. Everything else, and any redirect, goes through
// the tuned net/http client (transport.go). It speaks the subset of
// HTTP/1.1 a chat completion needs: one POST with a Content-Length, and a
// response framed by Content-Length, chunked encoding or connection close;
// interim 1xx responses are skipped.

// h1Client holds the request head shared by every request and the pool of
// idle connections, reused last-in first-out so the warmest are used.
type h1Client struct {
	addr    string // host:port dialed
	head    []byte // request line and fixed headers, up to "Content-Length: "
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	maxIdle int
	// idleTimeout closes connections idle longer (idleConnTimeout, as the
	// net/http transport).
	idleTimeout time.Duration

	// redirected is set once the endpoint answered with a redirect: from
	// then on net/http sends everything (send.go).
	redirected atomic.Bool

	mu     sync.Mutex
	idle   []*h1Conn
	closed bool // Close was called: returned connections are closed, not kept
}

// h1Conn is one connection and its read buffer.
type h1Conn struct {
	conn      net.Conn
	rx        rxtime.Reader // reads conn, noting when bytes arrived
	probe     *prober       // checks it before reuse (probe_unix.go)
	br        *bufio.Reader // reads rx
	reused    bool          // it served a request before this one
	idleSince time.Time     // when it went back to the pool
}

// aLongTimeAgo is a deadline in the past: setting it unblocks any read or
// write on the connection at once (how a canceled request is aborted).
var aLongTimeAgo = time.Unix(1, 0)

// errNotSent wraps a write error on a reused connection before any byte of
// the request went out: the server had closed it, so the request is sent
// once more on a freshly dialed connection. Once any byte is written the
// request is never sent again (the server may have acted on it), as
// net/http does for a POST.
var errNotSent = errors.New("connection closed before the request was sent")

// validHeaderValue reports whether v can be sent as a header field value:
// no control characters but tab (a pasted key with a newline would
// otherwise split the request head).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// leanEligible reports whether the lean client can serve chatURL with cfg:
// anything it cannot do (TLS, a proxy, URL credentials, HTTP/2, a custom
// client, a system where idle connections cannot be probed) stays with
// net/http. proxy is the transport's proxy rule
// (http.ProxyFromEnvironment).
func leanEligible(cfg config, chatURL string, proxy func(*http.Request) (*url.URL, error)) (*url.URL, bool) {
	u, err := url.Parse(chatURL)
	if err != nil || u.Scheme != "http" || u.User != nil || cfg.http2 || cfg.httpClient != nil || !cfg.leanHTTP || !canProbe {
		return nil, false
	}
	// Host names that need IDNA encoding and IPv6 zones: net/http rewrites
	// them for the Host header; leave them to it.
	for _, c := range []byte(u.Host) {
		if c >= 0x80 || c == '%' {
			return nil, false
		}
	}
	if via, err := proxy(&http.Request{URL: u}); err != nil || via != nil {
		return nil, false
	}
	return u, true
}

// newH1Client renders the request head once. header must hold only valid
// field values (New checks the API key).
func newH1Client(u *url.URL, header http.Header, maxIdle int, dial func(context.Context, string, string) (net.Conn, error)) *h1Client {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	host := strings.TrimSuffix(u.Host, ":") // "host:" means the default port, as in net/http
	head := []byte("POST " + u.RequestURI() + " HTTP/1.1\r\nHost: " + host + "\r\n")
	for _, k := range []string{"User-Agent", "Content-Type", "Accept", "Authorization"} {
		if v := header.Get(k); v != "" {
			head = append(head, k+": "+v+"\r\n"...)
		}
	}
	head = append(head, "Content-Length: "...)
	return &h1Client{
		addr:        net.JoinHostPort(u.Hostname(), port),
		head:        head,
		dial:        dial,
		maxIdle:     maxIdle,
		idleTimeout: idleConnTimeout,
	}
}

// reserve is how many bytes a request buffer keeps free in front of the
// body for frame to put the head in, so head and body go out in one write
// without copying the body.
func (h *h1Client) reserve() int { return len(h.head) + 20 + 4 }

// frame writes the head, right-aligned, into buf[:off] (off = reserve())
// and returns the whole request, buf[off:] being the body.
func (h *h1Client) frame(buf []byte, off int) []byte {
	var n [20]byte
	cl := strconv.AppendInt(n[:0], int64(len(buf)-off), 10)
	start := off - 4 - len(cl) - len(h.head)
	i := start + copy(buf[start:], h.head)
	i += copy(buf[i:], cl)
	copy(buf[i:], "\r\n\r\n")
	return buf[start:]
}

// roundTrip sends req (from frame) and reads the response head. The body
// must be closed. ctx aborts the exchange at any point, body included.
func (h *h1Client) roundTrip(ctx context.Context, req []byte) (*h1Response, error) {
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			return nil, err // canceled before anything was sent
		}
		c, err := h.get(ctx, attempt > 0)
		if err != nil {
			return nil, err
		}
		stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(aLongTimeAgo) })
		resp, err := c.exchange(req)
		if err == nil {
			resp.body.h, resp.body.c, resp.body.stop = h, c, stop
			return resp, nil
		}
		stop()
		_ = c.conn.Close()
		if attempt == 0 && errors.Is(err, errNotSent) && ctx.Err() == nil {
			continue
		}
		return nil, err
	}
}

// exchange writes the request and reads the response head.
func (c *h1Conn) exchange(req []byte) (*h1Response, error) {
	if n, err := c.conn.Write(req); err != nil {
		if n == 0 && c.reused {
			err = fmt.Errorf("%w: %w", errNotSent, err)
		}
		return nil, err
	}
	return readResponseHead(c.br)
}

// get takes an idle connection that is still good, or dials one (always,
// when fresh is set).
func (h *h1Client) get(ctx context.Context, fresh bool) (*h1Conn, error) {
	for !fresh {
		h.mu.Lock()
		n := len(h.idle)
		if n == 0 {
			h.mu.Unlock()
			break
		}
		c := h.idle[n-1]
		h.idle = h.idle[:n-1]
		h.mu.Unlock()
		// Go's transport learns of a server closing an idle connection
		// from a read it keeps pending on it; the lean client asks the
		// socket just before reuse instead (probe_unix.go): one
		// non-blocking peek, instead of a goroutine per connection.
		if time.Since(c.idleSince) < h.idleTimeout && !c.probe.closedOrUnasked() {
			c.reused = true
			return c, nil
		}
		_ = c.conn.Close()
	}
	conn, err := h.dial(ctx, "tcp", h.addr)
	if err != nil {
		return nil, err
	}
	rx := rxtime.New(conn)
	return &h1Conn{conn: conn, rx: rx, probe: newProber(conn), br: bufio.NewReaderSize(rx, transportBufSize)}, nil
}

// put returns a connection whose response was read to its end. The pool
// is a stack, so after concurrency drops its bottom is never taken again:
// connections idle there longer than idleTimeout are closed here (as
// net/http's idle timer would), so they do not hold a socket and a buffer
// each for the rest of the run.
func (h *h1Client) put(c *h1Conn) {
	c.idleSince = time.Now()
	var drop []*h1Conn
	h.mu.Lock()
	for len(h.idle) > 0 && c.idleSince.Sub(h.idle[0].idleSince) > h.idleTimeout {
		drop = append(drop, h.idle[0])
		h.idle = h.idle[1:]
	}
	if !h.closed && len(h.idle) < h.maxIdle {
		h.idle = append(h.idle, c)
	} else {
		drop = append(drop, c)
	}
	h.mu.Unlock()
	closeAll(drop)
}

// close closes the idle connections and makes connections still in use
// close when their response is done. Requests may still be sent; their
// connections are then not kept.
func (h *h1Client) close() {
	h.mu.Lock()
	idle := h.idle
	h.idle, h.closed = nil, true
	h.mu.Unlock()
	closeAll(idle)
}

func closeAll(cs []*h1Conn) {
	for _, c := range cs {
		_ = c.conn.Close()
	}
}
