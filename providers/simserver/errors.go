package simserver

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/providers/sim"
)

// apiError is OpenAI's error object.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// errorBody renders {"error":{...}} as OpenAI does.
func errorBody(typ, code, msg string, param *string) []byte {
	b, _ := json.Marshal(struct {
		Error apiError `json:"error"`
	}{apiError{Message: msg, Type: typ, Param: param, Code: strPtr(code)}})
	return b
}

// writeError sends an OpenAI-style JSON error with status.
func writeError(w http.ResponseWriter, status int, typ, code, msg string, param *string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(errorBody(typ, code, msg, param))
	w.Write([]byte("\n"))
}

// setRateHeaders copies x-ratelimit-* headers onto the response.
func setRateHeaders(h http.Header, limits map[string]string) {
	for k, v := range limits {
		h.Set(k, v)
	}
}

// setRetryAfter sends Retry-After in whole seconds (rounded up, as
// clients parse integers) and the precise retry-after-ms.
func setRetryAfter(h http.Header, d time.Duration) {
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	h.Set("Retry-After-Ms", strconv.FormatInt(d.Milliseconds(), 10))
}

// writeFailure maps a simulator refusal to OpenAI's status, headers and
// body: 429 rate_limit_exceeded with Retry-After and x-ratelimit-*, 400
// invalid_request_error (context_length_exceeded), 503 when closed.
func writeFailure(w http.ResponseWriter, err error) {
	f := engine.Classify(err)
	switch {
	case f.Status == http.StatusTooManyRequests:
		setRateHeaders(w.Header(), f.Headers)
		if f.RetryAfter > 0 {
			setRetryAfter(w.Header(), f.RetryAfter)
		}
		typ := sim.RateLimitType(f)
		if typ == "" {
			typ = "requests"
		}
		writeError(w, http.StatusTooManyRequests, typ, "rate_limit_exceeded", f.Message, nil)
	case f.Status == http.StatusBadRequest:
		code := ""
		if strings.Contains(f.Message, "maximum context length") {
			code = "context_length_exceeded"
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", code, f.Message, strPtr("messages"))
	case f.Class == engine.ClassCanceled || f.Class == engine.ClassTimeout:
		// The client went away during admission: nobody to answer.
	default:
		writeError(w, http.StatusServiceUnavailable, "server_error", "", "The server is shutting down: "+f.Message, nil)
	}
}
