package simserver

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// faultKind is one way the server can misbehave.
type faultKind uint8

const (
	faultNone faultKind = iota
	fault429
	fault429NoRetry
	fault503
	fault500
	fault400
	faultHTML
	faultResetBefore
	faultResetDuring
	faultErrorEvent
	faultMalformed
	faultEmpty200
	faultNoDone
	faultSlowHeaders
	faultHang
	faultCount
)

// String is the kind's name in a fault spec.
func (k faultKind) String() string {
	switch k {
	case fault429:
		return "429"
	case fault429NoRetry:
		return "429-no-retry-after"
	case fault503:
		return "503"
	case fault500:
		return "500"
	case fault400:
		return "400"
	case faultHTML:
		return "html"
	case faultResetBefore:
		return "reset-before"
	case faultResetDuring:
		return "reset-during"
	case faultErrorEvent:
		return "error-event"
	case faultMalformed:
		return "malformed"
	case faultEmpty200:
		return "empty-200"
	case faultNoDone:
		return "no-done"
	case faultSlowHeaders:
		return "slow-headers"
	case faultHang:
		return "hang"
	}
	return "none"
}

// FaultKinds lists the fault names ParseFaults accepts.
func FaultKinds() []string {
	ks := make([]string, 0, faultCount-1)
	for k := faultNone + 1; k < faultCount; k++ {
		ks = append(ks, k.String())
	}
	return ks
}

// DefaultSlowHeaders is how long slow-headers holds back the response
// headers unless the spec says otherwise: beyond common client timeouts.
const DefaultSlowHeaders = 30 * time.Second

// Faults are injection rates per kind: each chat request independently
// draws at most one fault, kind k with probability rate(k), from a
// generator seeded by Seed and the request's sequence number, so a run
// with the same seed and request order misbehaves identically.
type Faults struct {
	rates [faultCount]float64
	// Seed seeds the draws ("seed=N" in a spec).
	Seed int64
	// SlowHeaders is the slow-headers delay ("slow-delay=45s" in a spec).
	SlowHeaders time.Duration
}

// ParseFaults reads a spec like
// "429=0.05,503=0.02,reset-during=0.01,slow-delay=45s,seed=7": kind=rate
// pairs with rates in [0, 1] adding up to at most 1, plus the optional
// settings seed and slow-delay. The empty spec injects nothing. Errors name
// the offending item.
func ParseFaults(spec string) (Faults, error) {
	f := Faults{SlowHeaders: DefaultSlowHeaders}
	total := 0.0
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, val, ok := strings.Cut(item, "=")
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if !ok || val == "" {
			return Faults{}, fmt.Errorf("faults: %q: want kind=rate", item)
		}
		switch key {
		case "seed":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return Faults{}, fmt.Errorf("faults: seed %q is not an integer", val)
			}
			f.Seed = n
			continue
		case "slow-delay":
			d, err := time.ParseDuration(val)
			if err != nil || d < 0 {
				return Faults{}, fmt.Errorf("faults: slow-delay %q is not a duration like 45s", val)
			}
			f.SlowHeaders = d
			continue
		}
		k := faultNone
		for c := faultNone + 1; c < faultCount; c++ {
			if c.String() == key {
				k = c
			}
		}
		if k == faultNone {
			return Faults{}, fmt.Errorf("faults: unknown kind %q (kinds: %s; settings: seed, slow-delay)", key, strings.Join(FaultKinds(), ", "))
		}
		r, err := strconv.ParseFloat(val, 64)
		if err != nil || math.IsNaN(r) || r < 0 || r > 1 {
			return Faults{}, fmt.Errorf("faults: %s: rate %q is not a number between 0 and 1", key, val)
		}
		total += r - f.rates[k]
		f.rates[k] = r
	}
	if total > 1+1e-9 {
		return Faults{}, fmt.Errorf("faults: rates add up to %.4g, more than 1", total)
	}
	return f, nil
}

// Rate is the injection rate of the named kind (0 for unknown names).
func (f Faults) Rate(kind string) float64 {
	for k := faultNone + 1; k < faultCount; k++ {
		if k.String() == kind {
			return f.rates[k]
		}
	}
	return 0
}

// String renders the spec back, kinds sorted by name.
func (f Faults) String() string {
	var parts []string
	for k := faultNone + 1; k < faultCount; k++ {
		if f.rates[k] > 0 {
			parts = append(parts, k.String()+"="+strconv.FormatFloat(f.rates[k], 'g', -1, 64))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// pick draws the fault for request number no.
func (f *Faults) pick(no uint64) faultKind {
	x := uint64(f.Seed) ^ no*0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	x ^= x >> 31
	u := float64(x>>11) / (1 << 53)
	acc := 0.0
	for k := faultNone + 1; k < faultCount; k++ {
		acc += f.rates[k]
		if f.rates[k] > 0 && u < acc {
			return k
		}
	}
	return faultNone
}

const injected = " (injected fault)"

// preResponseFault misbehaves before any response is written. It reports
// true when the request has been dealt with; slow-headers only delays.
func (s *server) preResponseFault(w http.ResponseWriter, r *http.Request, k faultKind) bool {
	h := w.Header()
	switch k {
	case fault429, fault429NoRetry:
		h.Set("x-ratelimit-limit-requests", "500")
		h.Set("x-ratelimit-remaining-requests", "0")
		h.Set("x-ratelimit-reset-requests", "1s")
		msg := "Rate limit reached for " + s.model + " in organization org-kneepoint-sim on requests per min (RPM): Limit 500, Used 500, Requested 1."
		if k == fault429 {
			setRetryAfter(h, time.Second)
			msg += " Please try again in 1s."
		}
		writeError(w, http.StatusTooManyRequests, "requests", "rate_limit_exceeded", msg+injected, nil)
	case fault503:
		writeError(w, http.StatusServiceUnavailable, "server_error", "", "The engine is currently overloaded, please try again later."+injected, nil)
	case fault500:
		writeError(w, http.StatusInternalServerError, "server_error", "", "The server had an error while processing your request. Sorry about that!"+injected, nil)
	case fault400:
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "Invalid request."+injected, nil)
	case faultHTML:
		h.Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"))
	case faultResetBefore:
		reset(w)
	case faultEmpty200:
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
	case faultSlowHeaders:
		t := time.NewTimer(s.faults.SlowHeaders)
		defer t.Stop()
		select {
		case <-t.C:
			return false
		case <-r.Context().Done():
		case <-s.quit:
		}
	case faultHang:
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
	default:
		return false
	}
	return true
}

// midStreamFault misbehaves after a content chunk. It reports true when
// the stream has ended.
func (o *response) midStreamFault(w http.ResponseWriter, rc *http.ResponseController) bool {
	switch o.fault {
	case faultResetDuring:
		rc.Flush()
		reset(w)
		return true
	case faultErrorEvent:
		w.Write([]byte(`data: {"error":{"message":"The server had an error while processing your request. Sorry about that!` + injected + `","type":"server_error","param":null,"code":null}}` + "\n\n"))
		rc.Flush()
		return true
	case faultMalformed:
		b := append(o.buf[:0], o.head...)
		b = append(b, `"content":"`...)
		b = append(b, "\n\n"...)
		w.Write(b)
		rc.Flush()
		o.fault = faultNone // once
	}
	return false
}

// wholeFault is the non-streaming form of the mid-stream faults, given
// the body that would have been sent.
func (o *response) wholeFault(w http.ResponseWriter, body []byte) bool {
	h := w.Header()
	switch o.fault {
	case faultResetDuring, faultNoDone:
		// Promise the whole body, send half: reset, or a short close.
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:len(body)/2])
		if o.fault == faultResetDuring {
			http.NewResponseController(w).Flush()
			reset(w)
		}
		return true
	case faultErrorEvent:
		h.Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write(errorBody("server_error", "", "The server had an error while processing your request. Sorry about that!"+injected, nil))
		return true
	case faultMalformed:
		half := body[:len(body)/2]
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(half)))
		w.WriteHeader(http.StatusOK)
		w.Write(half)
		return true
	}
	return false
}

// reset drops the connection with a TCP RST (linger 0) when it can be
// hijacked, else aborts the response (HTTP/2: RST_STREAM).
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}
