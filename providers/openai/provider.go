package openai

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/kneepoint/kneepoint/engine"
)

// Provider sends chat completions to an OpenAI-compatible endpoint and
// times them on the wire. It is safe for concurrent use; everything but
// the connection counters is fixed at New.
type Provider struct {
	cfg     config
	base    string // normalised base URL, credentials included (never shown)
	chatURL string
	auth    string // "Bearer <key>", or "" for no Authorization header
	red     redactor
	client  *http.Client
	oa      *goopenai.Client // models listing
	conns   *connCounter     // nil with WithHTTPClient
	extras  map[string]json.RawMessage
	prompts []promptLine
	vocab   []string
	packed  []packedWord // vocab for appendWords
	header  http.Header  // request headers, shared read-only by all requests
	h1      *h1Client    // the lean HTTP/1.1 client, or nil (send.go)
	readers sync.Pool    // *bufio.Reader, reused across requests
}

var (
	_ engine.Provider  = (*Provider)(nil)
	_ engine.Describer = (*Provider)(nil)
)

// readBufSize is the stream reader's buffer: chunks are a few hundred
// bytes, so lines nearly always fit and are returned without copying. One
// is held per request in flight: 8 KiB takes a fast stream in reads of
// about 30 chunks, and 10,000 streams hold 80 MB (32 KiB let the GC goal,
// twice the live heap, take resident memory past 1 GiB).
const readBufSize = 8 << 10

// userAgent names kneepoint to the server (its access log, a gateway's
// per-client limits) on both HTTP paths.
const userAgent = "kneepoint"

// drainWait bounds how long Do waits, after [DONE], for the rest of the
// response so the connection can be reused. Timing is already recorded.
const drainWait = time.Second

// New validates the options and builds the provider with its tuned
// transport. Nothing is sent; call Check to verify the endpoint.
func New(opts ...Option) (*Provider, error) {
	cfg := defaults()
	for _, o := range opts {
		o(&cfg)
	}
	base, err := normaliseBaseURL(cfg.baseURL)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.maxConns < 1:
		return nil, fmt.Errorf("max_conns: %d is not a positive connection count", cfg.maxConns)
	case cfg.timeout < 0:
		return nil, fmt.Errorf("timeout: must not be negative")
	case cfg.sharedPrefix < 0:
		return nil, fmt.Errorf("shared_prefix_tokens: must not be negative")
	case cfg.maxTokensField != "max_tokens" && cfg.maxTokensField != "max_completion_tokens":
		return nil, fmt.Errorf("max_tokens_field: %q is neither max_tokens nor max_completion_tokens", cfg.maxTokensField)
	}
	root, rawQuery := splitQuery(base)
	p := &Provider{
		cfg:     cfg,
		base:    base,
		chatURL: withQuery(root+"/chat/completions", rawQuery),
		red:     newRedactor(cfg.apiKey, base),
		vocab:   newVocab(),
	}
	p.packed = packWords(p.vocab)
	if cfg.apiKey != "" {
		p.auth = "Bearer " + cfg.apiKey
	}
	if !validHeaderValue(cfg.apiKey) {
		return nil, fmt.Errorf("api key: contains a line break or control character (copied with a trailing newline?)")
	}
	p.header = http.Header{"User-Agent": {userAgent}, "Content-Type": {"application/json"}, "Accept": {"application/json"}}
	if cfg.stream {
		p.header["Accept"] = []string{"text/event-stream"}
	}
	if p.auth != "" {
		p.header["Authorization"] = []string{p.auth}
	}
	if p.extras, err = encodeExtras(cfg.extraBody); err != nil {
		return nil, err
	}
	if cfg.promptsFile != "" {
		if p.prompts, err = loadPrompts(cfg.promptsFile); err != nil {
			return nil, err
		}
	}
	if cfg.httpClient != nil {
		p.client = cfg.httpClient
	} else {
		p.conns = &connCounter{}
		u, _ := url.Parse(base)
		p.client = &http.Client{
			Transport:     newTransport(cfg, u.Scheme, p.conns),
			CheckRedirect: checkRedirect,
		}
		if cu, ok := leanEligible(cfg, p.chatURL, http.ProxyFromEnvironment); ok {
			d := &net.Dialer{Timeout: dialTimeout, KeepAlive: tcpKeepAlive}
			p.h1 = newH1Client(cu, p.header, cfg.maxConns, p.conns.dial(d))
		}
	}
	oc := goopenai.DefaultConfig(cfg.apiKey)
	oc.BaseURL = root
	oc.HTTPClient = p.client
	if rawQuery != "" {
		q, _ := url.ParseQuery(rawQuery) // normaliseBaseURL produced it
		oc.HTTPClient = queryDoer{client: p.client, query: q}
	}
	p.oa = goopenai.NewClientWithConfig(oc)
	p.readers.New = func() any { return bufio.NewReaderSize(nil, readBufSize) }
	return p, nil
}

// normaliseBaseURL checks the base URL and drops a trailing slash or a
// pasted /chat/completions.
func normaliseBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		return "", fmt.Errorf("base_url %s: want http:// or https://, e.g. http://127.0.0.1:8000/v1", shownRaw(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("base_url %s: not a URL", shownRaw(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("base_url %s: want http:// or https://, e.g. http://127.0.0.1:8000/v1", RedactURL(raw))
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("base_url %s: no host", RedactURL(raw))
	}
	if u.Fragment != "" || u.RawQuery != "" && strings.Contains(u.Path, "chat/completions") {
		return "", fmt.Errorf("base_url %s: want the API root, e.g. http://127.0.0.1:8000/v1", RedactURL(raw))
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/chat/completions")
	u.RawPath = ""
	return strings.TrimRight(u.String(), "/"), nil
}

// shownRaw quotes an unparseable base URL for an error message unless it
// might hold credentials.
func shownRaw(raw string) string {
	if strings.ContainsAny(raw, "@?") || len(raw) > 200 {
		return "(not shown: it may contain credentials)"
	}
	return fmt.Sprintf("%q", raw)
}

// Describe names the target for headers and results; the URL is shown
// without credentials.
func (p *Provider) Describe() engine.Target {
	return engine.Target{Provider: "openai", Model: p.cfg.model, BaseURL: RedactURL(p.base)}
}

// Conns reports connections currently open and dialed since New, for the
// harness-health line: dialed growing with requests means connections are
// not being reused (a server closing them, or a pool too small).
func (p *Provider) Conns() (open, dialed int64) {
	if p.conns == nil {
		return 0, 0
	}
	return p.conns.open.Load(), p.conns.dialed.Load()
}

// Close releases idle connections.
func (p *Provider) Close() {
	p.client.CloseIdleConnections()
	if p.h1 != nil {
		p.h1.close()
	}
}

// Do sends one request and records its timing into tr. It returns nil or
// a *engine.Failure.
func (p *Provider) Do(ctx context.Context, req engine.Request, tr *engine.Trace) error {
	off := 0
	if p.h1 != nil {
		off = p.h1.reserve()
	}
	buf, err := p.appendBody(make([]byte, off, off+p.bodySize(req.PromptTokens)), req.Seed, req.ID, req.PromptTokens, req.MaxTokens)
	if err != nil {
		return &engine.Failure{Class: engine.ClassOther, Message: p.message("encoding request: " + err.Error())}
	}
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var timer *time.Timer // the request timeout, reused to bound the drain
	if p.cfg.timeout > 0 {
		timer = time.AfterFunc(p.cfg.timeout, func() { cancel(errRequestTimeout) })
		defer timer.Stop()
	}

	// The clock starts just before the request is sent, as in vLLM's
	// benchmark: connection setup (a fresh dial when the server closed the
	// last one, as llama.cpp does) is part of what a client waits for.
	tr.Start(time.Now())
	resp, err := p.send(reqCtx, buf, off)
	if err != nil {
		return p.transportFailure(ctx, reqCtx, err, "")
	}
	defer resp.body.Close()
	if resp.status < 200 || resp.status > 299 {
		return p.httpFailure(resp)
	}
	if h := p.red.cleanValues(rateHeaders(resp.header)); h != nil {
		tr.RateLimit(engine.RateHeaders{RetryAfter: retryAfter(resp.header, resp.status, time.Now()), Limits: h})
	}
	br := p.readers.Get().(*bufio.Reader)
	br.Reset(resp.body)
	defer func() { br.Reset(nil); p.readers.Put(br) }()

	var out outcome
	switch mt := mediaType(resp.contentType); {
	case mt == "text/event-stream":
		out = readStream(br, tr, resp.clock)
	case mt == "text/html":
		b, _ := io.ReadAll(io.LimitReader(br, maxErrorBody))
		return streamFailure("%s", p.message(strings.Replace(describeBody(resp.status, mt, b),
			"HTML error page", "HTML page instead of a completion", 1)))
	default:
		// JSON (non-streaming, or a server that ignored stream: true), or
		// an unlabelled body that is a stream if it looks like one.
		if first, _ := br.Peek(5); string(first) == "data:" {
			out = readStream(br, tr, resp.clock)
		} else {
			out = readWhole(br, tr, resp.clock)
		}
	}
	switch {
	case out.readErr != nil:
		return p.transportFailure(ctx, reqCtx, out.readErr, out.stage)
	case out.failure != nil:
		out.failure.Message = p.message(out.failure.Message)
		return out.failure
	}
	if !out.eof {
		p.drain(br, cancel, timer)
	}
	return nil
}

// outcome is how reading a 200 response's body ended: nil fields mean
// success; readErr is an I/O error still to be classified against the
// contexts, stage saying how far the body had got.
type outcome struct {
	failure *engine.Failure
	readErr error
	stage   string
	eof     bool // the body was read to its end: nothing to drain
}

// drain reads what is left of a finished response (normally just the
// chunked-encoding terminator) so the connection returns to the pool, but
// gives up after drainWait. timeout, when not nil, is the request's
// timeout timer, re-armed for drainWait instead of starting another.
func (p *Provider) drain(body io.Reader, cancel context.CancelCauseFunc, timeout *time.Timer) {
	if timeout != nil {
		timeout.Reset(drainWait)
	} else {
		t := time.AfterFunc(drainWait, func() { cancel(nil) })
		defer t.Stop()
	}
	_, _ = io.CopyN(io.Discard, body, 64<<10)
}

func mediaType(ct string) string {
	switch ct { // the usual values, without parsing (and allocating)
	case "text/event-stream", "application/json":
		return ct
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// OpenConns is the number of connections open now, for the engine's
// harness-health line (engine.ConnCounter).
func (p *Provider) OpenConns() int64 {
	open, _ := p.Conns()
	return open
}

var _ engine.ConnCounter = (*Provider)(nil)
