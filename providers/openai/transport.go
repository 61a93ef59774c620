package openai

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"sync/atomic"
	"syscall"
	"time"
)

// Transport sizing and timeouts.
//
// go-openai's default client (a zero http.Client) keeps 2 idle connections
// per host: at concurrency 64, 62 requests would dial a fresh connection
// every time and the harness would measure its own handshakes. One
// transport is shared by all workers with MaxIdleConnsPerHost equal to the
// pool size and no per-host cap, so each in-flight request keeps a warm
// connection of its own.
//
// HTTP/1.1 is the default, even for https://: one connection per in-flight
// request is what independent clients look like to a server, and an HTTP/2
// connection's MAX_CONCURRENT_STREAMS (often 100-250) would otherwise gate
// the concurrency under test. WithHTTP2 enables HTTP/2 (ALPN for https, h2c
// prior knowledge for http); StrictMaxConcurrentRequests stays false so Go
// dials another connection instead of queueing when a stream limit is hit.
// Measured caveat: a cold burst larger than the server's stream limit gets
// some streams refused before the server's SETTINGS arrive, and Go's
// HTTP/2 client retries them after about 1 s; once warm (the sweep's
// warmup), 16 streams at a limit of 4 run on 5 connections with no delay.
//
// Response headers may legitimately take as long as TTFT (llama.cpp sends
// them with the first token, and a saturated server's TTFT reaches tens of
// seconds), so headers get the whole request timeout, not a short
// constant. That bound is Do's own timer (and the check's deadline for
// model listing): the transport sets no ResponseHeaderTimeout, which
// would fire at the same instant as Do's timer and word the same timeout
// two ways depending on which won. Compression is disabled: gzip through
// a proxy buffers an event stream and distorts ITL.
const (
	dialTimeout     = 10 * time.Second
	tlsTimeout      = 10 * time.Second
	tcpKeepAlive    = 30 * time.Second
	idleConnTimeout = 90 * time.Second
	// transportBufSize is the per-connection read and write buffer. The
	// stream reader (readBufSize) reads past it straight from the socket,
	// and a request is about a kilobyte, so 4 KiB (Go's default) costs no
	// throughput, while 32 KiB each way held 640 MB of buffers at 10,000
	// connections and let the GC goal climb past 1 GiB (bench/compare.sh).
	transportBufSize = 4 << 10
	maxRedirects     = 5
)

// connCounter counts connections for the harness-health line.
type connCounter struct {
	open   atomic.Int64
	dialed atomic.Int64
}

// countedConn decrements the open count once when closed.
type countedConn struct {
	net.Conn
	c      *connCounter
	closed atomic.Bool
}

func (cc *countedConn) Close() error {
	if cc.closed.CompareAndSwap(false, true) {
		cc.c.open.Add(-1)
	}
	return cc.Conn.Close()
}

// SyscallConn exposes the socket, for receive timestamps (providers/rxtime).
func (cc *countedConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := cc.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return sc.SyscallConn()
}

func (c *connCounter) dial(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		c.dialed.Add(1)
		c.open.Add(1)
		return &countedConn{Conn: conn, c: c}, nil
	}
}

// newTransport builds the one transport all requests share.
func newTransport(cfg config, scheme string, counter *connCounter) *http.Transport {
	d := &net.Dialer{Timeout: dialTimeout, KeepAlive: tcpKeepAlive}
	t := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         counter.dial(d),
		MaxIdleConns:        cfg.maxConns,
		MaxIdleConnsPerHost: cfg.maxConns,
		MaxConnsPerHost:     0,
		IdleConnTimeout:     idleConnTimeout,
		TLSHandshakeTimeout: tlsTimeout,
		DisableCompression:  true,
		ReadBufferSize:      transportBufSize,
		WriteBufferSize:     transportBufSize,
		ForceAttemptHTTP2:   cfg.http2,
		HTTP2:               &http.HTTP2Config{StrictMaxConcurrentRequests: false},
	}
	var p http.Protocols
	switch {
	case cfg.http2 && scheme == "http":
		p.SetUnencryptedHTTP2(true)
	case cfg.http2:
		p.SetHTTP1(true)
		p.SetHTTP2(true)
	default:
		p.SetHTTP1(true)
	}
	t.Protocols = &p
	return t
}

// checkRedirect follows at most maxRedirects hops and never carries
// credentials to another origin: Go's own rule keeps Authorization for the
// same host name on any port and for subdomains, which is too lenient for
// an API key.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errors.New("stopped after 5 redirects")
	}
	if !sameOrigin(via[0].URL, req.URL) {
		req.Header.Del("Authorization")
		req.Header.Del("Api-Key")
		req.Header.Del("Referer")
	}
	return nil
}

func sameOrigin(a, b *url.URL) bool {
	return a.Scheme == b.Scheme && a.Host == b.Host
}
