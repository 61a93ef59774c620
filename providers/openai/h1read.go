package openai

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// maxHeadBytes bounds a response head (status line and header fields).
// net/http allows 10 MB; a chat completion's head is well under 2 KB.
const maxHeadBytes = 1 << 20

// h1Response is a response head as the provider uses it: the status, the
// media type, and only the header fields kneepoint reads later (rate-limit
// hints, Retry-After, Location), so a plain 200 builds no header map.
type h1Response struct {
	status      int
	contentType string
	header      http.Header // nil when none of the read fields came
	body        h1Body
}

// bodyMode is how the end of a response body is found (RFC 9112 §6.3).
type bodyMode uint8

const (
	bodyLength     bodyMode = iota // Content-Length bytes
	bodyChunked                    // chunked transfer coding
	bodyUntilClose                 // everything until the server closes
)

// h1Body reads a response body off its connection and, when closed after
// being read to its end, returns the connection to the pool.
type h1Body struct {
	h    *h1Client
	c    *h1Conn
	br   *bufio.Reader
	stop func() bool // unregisters the request context's abort

	mode      bodyMode
	left      int64 // bytes left in the body (length) or in this chunk (chunked)
	inChunk   bool  // a chunk's data started: its CRLF is still to be read
	keepAlive bool  // the server allows another request on the connection
	done      bool  // the body's end was read: the connection is clean
	err       error // sticky read error
}

var (
	errBodyClosed = errors.New("read after the response body was closed")
	errChunked    = errors.New("malformed chunked encoding")
)

// readResponseHead reads a response's status line and header fields,
// skipping interim 1xx responses, and sets up its body's framing.
func readResponseHead(br *bufio.Reader) (*h1Response, error) {
	lr := headReader{br: br}
	for {
		r, err := readOneHead(&lr)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if r.status >= 200 {
			return r, nil
		}
		if r.status == http.StatusSwitchingProtocols {
			return nil, errors.New("unexpected 101 Switching Protocols")
		}
	}
}

func readOneHead(lr *headReader) (*h1Response, error) {
	line, err := lr.next()
	if err != nil {
		return nil, err
	}
	status, http11, err := parseStatusLine(line)
	if err != nil {
		return nil, err
	}
	r := &h1Response{status: status}
	r.body.br = lr.br
	hasLength, hasTE := false, false
	connClose, connKeep := false, false
	for {
		line, err := lr.next()
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // obsolete line folding: only long custom fields use it
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || len(name) == 0 || bytes.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("malformed response header line %s", snippet(line))
		}
		value = bytes.TrimSpace(value)
		switch {
		case strings.EqualFold(string(name), "content-length"):
			n, err := strconv.ParseUint(string(value), 10, 63)
			if err != nil || hasLength && int64(n) != r.body.left {
				return nil, fmt.Errorf("bad Content-Length %s", snippet(value))
			}
			hasLength, r.body.left = true, int64(n)
		case http11 && strings.EqualFold(string(name), "transfer-encoding"):
			// Only "chunked" alone is understood (no Accept-Encoding is
			// sent); like net/http, anything else is refused rather than
			// read as a body it is not. Transfer-Encoding came with
			// HTTP/1.1: in an HTTP/1.0 response it is ignored, as there.
			if hasTE || !bytes.EqualFold(value, []byte("chunked")) {
				return nil, fmt.Errorf("unsupported Transfer-Encoding %s", snippet(value))
			}
			hasTE = true
		case strings.EqualFold(string(name), "connection"):
			for _, t := range bytes.Split(value, []byte(",")) {
				t = bytes.TrimSpace(t)
				connClose = connClose || bytes.EqualFold(t, []byte("close"))
				connKeep = connKeep || bytes.EqualFold(t, []byte("keep-alive"))
			}
		case strings.EqualFold(string(name), "content-type"):
			r.contentType = internContentType(value)
		case isRateHeader(string(name)) || strings.EqualFold(string(name), "location"):
			if r.header == nil {
				r.header = make(http.Header, 4)
			}
			r.header.Add(http.CanonicalHeaderKey(string(name)), string(value))
		}
	}
	// HTTP/1.1 keeps the connection unless told to close; HTTP/1.0 closes
	// it unless told to keep it.
	r.body.keepAlive = !connClose && (http11 || connKeep)
	switch {
	case status < 200 || status == http.StatusNoContent || status == http.StatusNotModified:
		r.body.mode, r.body.left, r.body.done = bodyLength, 0, true
	case hasTE:
		r.body.mode, r.body.left = bodyChunked, 0
		r.body.keepAlive = r.body.keepAlive && !hasLength // both: a smuggling risk, do not reuse
	case !hasLength:
		r.body.mode, r.body.keepAlive = bodyUntilClose, false
	default:
		r.body.mode, r.body.done = bodyLength, r.body.left == 0
	}
	return r, nil
}

// parseStatusLine reads "HTTP/1.x NNN reason"; http11 tells HTTP/1.1 from
// HTTP/1.0.
func parseStatusLine(line []byte) (status int, http11 bool, err error) {
	bad := func() (int, bool, error) {
		return 0, false, fmt.Errorf("malformed HTTP status line %s", snippet(line))
	}
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || line[8] != ' ' ||
		len(line) > 12 && line[12] != ' ' {
		return bad()
	}
	for _, d := range line[9:12] {
		if d < '0' || d > '9' {
			return bad()
		}
	}
	status = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	if status < 100 {
		return bad()
	}
	switch line[7] {
	case '1':
		return status, true, nil
	case '0':
		return status, false, nil
	}
	return bad()
}

// internContentType returns the usual media types without allocating.
func internContentType(v []byte) string {
	switch string(v) {
	case "text/event-stream":
		return "text/event-stream"
	case "text/event-stream; charset=utf-8":
		return "text/event-stream; charset=utf-8"
	case "application/json":
		return "application/json"
	case "application/json; charset=utf-8":
		return "application/json; charset=utf-8"
	}
	return string(v)
}

// headReader yields the lines of a response head without their CRLF,
// counting bytes against maxHeadBytes. Lines are returned in the read
// buffer when they fit and joined in long otherwise.
type headReader struct {
	br    *bufio.Reader
	long  []byte
	total int
}

func (lr *headReader) next() ([]byte, error) {
	line, err := lr.br.ReadSlice('\n')
	lr.total += len(line)
	if err == bufio.ErrBufferFull {
		lr.long = append(lr.long[:0], line...)
		for err == bufio.ErrBufferFull && lr.total <= maxHeadBytes {
			line, err = lr.br.ReadSlice('\n')
			lr.total += len(line)
			lr.long = append(lr.long, line...)
		}
		line = lr.long
	}
	if lr.total > maxHeadBytes {
		return nil, fmt.Errorf("response head larger than %d bytes", maxHeadBytes)
	}
	if err != nil {
		return nil, err
	}
	return trimEOL(line), nil
}

// Read reads the body, ending with io.EOF exactly at its framed end; a
// connection that ends before that is io.ErrUnexpectedEOF.
func (b *h1Body) Read(p []byte) (int, error) {
	switch {
	case b.err != nil:
		return 0, b.err
	case b.done:
		return 0, io.EOF
	case b.c == nil && b.h != nil:
		return 0, errBodyClosed
	case len(p) == 0:
		return 0, nil
	}
	var n int
	var err error
	switch b.mode {
	case bodyLength:
		n, err = b.br.Read(p[:min(int64(len(p)), b.left)])
		b.left -= int64(n)
		if b.left == 0 {
			b.done, err = true, nil
		}
	case bodyChunked:
		if b.left == 0 {
			if err = b.nextChunk(); err != nil || b.done {
				break
			}
		}
		n, err = b.br.Read(p[:min(int64(len(p)), b.left)])
		b.left -= int64(n)
	case bodyUntilClose:
		n, err = b.br.Read(p)
		if err == io.EOF {
			b.done = true
		}
	}
	if err == io.EOF && !b.done {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		b.err = err
	} else if b.done && n == 0 {
		err = io.EOF
	}
	return n, err
}

// nextChunk reads the CRLF ending the last chunk's data and the next
// chunk's size line; after the last (zero) chunk it reads the trailer
// section and marks the body done.
func (b *h1Body) nextChunk() error {
	if b.inChunk {
		if line, err := b.line(); err != nil || len(line) != 0 {
			return chunkErr(err)
		}
		b.inChunk = false
	}
	line, err := b.line()
	if err != nil {
		return chunkErr(err)
	}
	if i := bytes.IndexByte(line, ';'); i >= 0 {
		line = line[:i] // chunk extensions
	}
	size, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 62)
	if err != nil {
		return errChunked
	}
	if size > 0 {
		b.left, b.inChunk = int64(size), true
		return nil
	}
	for total := 0; ; { // trailer fields, unused
		line, err := b.line()
		if err != nil {
			return chunkErr(err)
		}
		if total += len(line); total > maxHeadBytes {
			return errChunked
		}
		if len(line) == 0 {
			b.done = true
			return nil
		}
	}
}

// line reads one framing line (a chunk size, a CRLF, a trailer field); a
// line longer than the read buffer is malformed here.
func (b *h1Body) line() ([]byte, error) {
	line, err := b.br.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	return trimEOL(line), nil
}

func chunkErr(err error) error {
	switch {
	case err == nil, err == bufio.ErrBufferFull:
		return errChunked
	case err == io.EOF:
		return io.ErrUnexpectedEOF
	}
	return err
}

// arrival is when the bytes last read from the connection arrived: the
// kernel's receive time where available. Bytes handed out from the read
// buffer came with that read or an earlier one, never later.
func (b *h1Body) arrival() time.Time {
	if b.c != nil {
		if at := b.c.rx.Arrived(); !at.IsZero() {
			return at
		}
	}
	return time.Now()
}

// Close returns the connection to the pool when the body was read to its
// end and the server keeps the connection open; otherwise it closes it.
func (b *h1Body) Close() error {
	c := b.c
	if c == nil {
		return nil
	}
	b.c = nil
	stopped := b.stop == nil || b.stop()
	if stopped && b.done && b.err == nil && b.keepAlive && b.br.Buffered() == 0 {
		b.h.put(c)
		return nil
	}
	return c.conn.Close()
}
