package openai

import (
	"bytes"
	"context"
	"io"
	"net/http"
)

// response is a response head from either client: the lean HTTP/1.1 one
// (h1.go) or net/http.
type response struct {
	status      int
	contentType string
	header      http.Header // may be nil (lean client, no fields of interest)
	body        io.ReadCloser
	clock       clock // when the body's bytes arrived (arrival.go)
}

// send posts the request in buf, whose body starts at off (the room in
// front is for the lean client's head), and returns the response head.
// A redirect seen by the lean client (an http:// URL moved to https://,
// say) sends this request again, and every later one, through net/http,
// which follows redirects under checkRedirect's rules.
func (p *Provider) send(ctx context.Context, buf []byte, off int) (response, error) {
	if p.h1 != nil && !p.h1.redirected.Load() {
		r, err := p.h1.roundTrip(ctx, p.h1.frame(buf, off))
		if err != nil {
			return response{}, err
		}
		if !isRedirect(r.status, r.header) {
			return response{status: r.status, contentType: r.contentType, header: r.header, body: &r.body, clock: &r.body}, nil
		}
		_ = r.body.Close()
		p.h1.redirected.Store(true)
		p.h1.close() // and any still in use as they finish (put)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, p.chatURL, bytes.NewReader(buf[off:]))
	if err != nil {
		return response{}, err
	}
	// The same headers for every request, built once in New: net/http
	// never modifies a request's Header (redirects get copies).
	hr.Header = p.header
	resp, err := p.client.Do(hr)
	if err != nil {
		return response{}, err
	}
	return response{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), header: resp.Header, body: resp.Body, clock: wallClock{}}, nil
}

// isRedirect reports a response net/http's client would follow.
func isRedirect(status int, h http.Header) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return h.Get("Location") != ""
	}
	return false
}
