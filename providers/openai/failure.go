package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/kneepoint/kneepoint/engine"
)

// maxMessage is how much of a server's message a Failure keeps: enough to
// read "Rate limit reached ... try again in 18.642s", short enough for one
// dashboard line.
const maxMessage = 200

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// errRequestTimeout is the cause set on a request's context when the
// per-request timeout fires, so it is told apart from the run's own
// cancellation.
var errRequestTimeout = errors.New("request timeout")

// trimMessage collapses whitespace and cuts s to maxMessage runes.
func trimMessage(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= maxMessage {
		return s
	}
	n := 0
	for i := range s {
		if n == maxMessage {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// httpFailure classifies a non-2xx response and reads its message.
func (p *Provider) httpFailure(resp response) *engine.Failure {
	body, _ := io.ReadAll(io.LimitReader(resp.body, maxErrorBody))
	return &engine.Failure{
		Class:      engine.ClassForStatus(resp.status),
		Status:     resp.status,
		Message:    p.message(describeBody(resp.status, resp.contentType, body)),
		RetryAfter: retryAfter(resp.header, resp.status, time.Now()),
		Headers:    p.red.cleanValues(rateHeaders(resp.header)),
	}
}

// message makes any text safe to leave the provider: secrets are removed
// before trimming, so a cut can never leave half a key behind.
func (p *Provider) message(s string) string {
	return trimMessage(p.red.clean(s))
}

// describeBody finds the human-readable message in an error body, whatever
// shape the server or a proxy in front of it used.
func describeBody(status int, contentType string, body []byte) string {
	if isHTML(contentType, body) {
		if t := htmlTitle(body); t != "" {
			return fmt.Sprintf("HTML error page (%d): %s", status, t)
		}
		return fmt.Sprintf("HTML error page (%d)", status)
	}
	if msg, ok := apiErrorMessage(body); ok {
		return msg
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if t := http.StatusText(status); t != "" {
			return t
		}
		return "empty response"
	}
	return strings.ToValidUTF8(string(body), "?")
}

func isHTML(contentType string, body []byte) bool {
	if strings.Contains(strings.ToLower(contentType), "text/html") {
		return true
	}
	b := bytes.TrimSpace(body)
	if len(b) > 64 {
		b = b[:64]
	}
	l := bytes.ToLower(b)
	return bytes.HasPrefix(l, []byte("<!doctype html")) || bytes.HasPrefix(l, []byte("<html"))
}

// htmlTitle returns the text of the page's <title>, if any.
func htmlTitle(body []byte) string {
	l := bytes.ToLower(body)
	i := bytes.Index(l, []byte("<title"))
	if i < 0 {
		return ""
	}
	j := bytes.IndexByte(l[i:], '>')
	if j < 0 {
		return ""
	}
	start := i + j + 1
	end := bytes.Index(l[start:], []byte("</title"))
	if end < 0 {
		return ""
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(body[start:start+end]), "?")), " ")
}

// apiErrorMessage reads the error shapes OpenAI-compatible servers use:
// {"error":{"message":...,"code":...}} (OpenAI, llama.cpp, SGLang),
// {"error":"text"} (TGI, some proxies), {"object":"error","message":...}
// (vLLM), {"detail":...} (FastAPI) and a bare {"message":...}. A string
// code such as rate_limit_exceeded or insufficient_quota is appended,
// since it says whether waiting can help.
func apiErrorMessage(body []byte) (string, bool) {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Code    json.RawMessage `json:"code"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return "", false
	}
	msg, code := "", e.Code
	if len(e.Error) > 0 && string(e.Error) != "null" {
		var inner struct {
			Message json.RawMessage `json:"message"`
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
		}
		if json.Unmarshal(e.Error, &inner) == nil {
			msg = rawText(inner.Message)
			if msg == "" {
				msg = inner.Type
			}
			code = inner.Code
		} else {
			msg = rawText(e.Error)
		}
	}
	if msg == "" {
		msg = rawText(e.Message)
	}
	if msg == "" {
		msg = rawText(e.Detail)
	}
	if msg == "" {
		return "", false
	}
	var c string
	if json.Unmarshal(code, &c) == nil && c != "" && !strings.Contains(msg, c) {
		msg += " [" + c + "]"
	}
	return msg, true
}

// rawText renders a JSON value as text: a string as itself, an array by
// joining its strings (or their "msg"/"message" members, as FastAPI's
// validation errors have), anything else compactly.
func rawText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		parts := make([]string, 0, len(arr))
		for _, a := range arr {
			var m struct {
				Msg     string `json:"msg"`
				Message string `json:"message"`
			}
			switch {
			case json.Unmarshal(a, &s) == nil:
				parts = append(parts, s)
			case json.Unmarshal(a, &m) == nil && (m.Msg != "" || m.Message != ""):
				parts = append(parts, m.Msg+m.Message)
			default:
				parts = append(parts, string(a))
			}
		}
		return strings.Join(parts, "; ")
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// transportFailure classifies an error from sending the request or reading
// the body. The run's own context decides canceled (or timeout when it had
// a deadline); the per-request timeout is a timeout; network timeouts are
// timeouts; anything else that happened before a response is a connection
// failure, and after the response started, stage says what broke.
func (p *Provider) transportFailure(parent, reqCtx context.Context, err error, stage string) *engine.Failure {
	switch {
	case parent.Err() != nil:
		if errors.Is(parent.Err(), context.DeadlineExceeded) {
			return &engine.Failure{Class: engine.ClassTimeout, Message: "run deadline reached" + stage}
		}
		return &engine.Failure{Class: engine.ClassCanceled, Message: "canceled" + stage}
	case errors.Is(context.Cause(reqCtx), errRequestTimeout):
		return &engine.Failure{Class: engine.ClassTimeout,
			Message: fmt.Sprintf("no complete response within %s%s", p.cfg.timeout, stage)}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &engine.Failure{Class: engine.ClassTimeout, Message: p.message(innermost(err) + stage)}
	}
	if stage != "" {
		return &engine.Failure{Class: engine.ClassStream, Message: p.message("stream broken" + stage + ": " + innermost(err))}
	}
	return &engine.Failure{Class: engine.ClassConnection, Message: p.message(p.reachMessage(err))}
}

// reachMessage says which endpoint could not be reached and why, e.g.
// "cannot reach http://127.0.0.1:8000/v1: connection refused".
func (p *Provider) reachMessage(err error) string {
	return fmt.Sprintf("cannot reach %s: %s", RedactURL(p.base), innermost(err))
}

// innermost strips Go's wrapping ("Post \"http://...\": dial tcp ...:
// connect: ...") down to the part a user can act on.
func innermost(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "connection closed by server"
	}
	return err.Error()
}

// streamFailure is a problem found in a 200 response's body.
func streamFailure(format string, args ...any) *engine.Failure {
	return &engine.Failure{Class: engine.ClassStream, Message: fmt.Sprintf(format, args...)}
}

// snippet quotes the start of a bad chunk for a message.
func snippet(b []byte) string {
	const n = 80
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "…"
	}
	return strconv.Quote(string(b))
}
