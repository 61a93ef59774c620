package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// ErrorClass is how a failed request is counted. Classes follow the
// OpenAI-compatible status conventions so results compare across servers.
type ErrorClass string

const (
	ClassRateLimited ErrorClass = "rate_limited" // 429
	ClassOverloaded  ErrorClass = "overloaded"   // 503, 529
	ClassServer      ErrorClass = "server_error" // other 5xx
	ClassClient      ErrorClass = "client_error" // other 4xx
	ClassTimeout     ErrorClass = "timeout"
	ClassConnection  ErrorClass = "connection"
	ClassStream      ErrorClass = "stream" // error event mid-stream, truncated or malformed stream
	ClassCanceled    ErrorClass = "canceled"
	ClassOther       ErrorClass = "other"
)

// Classes lists every class in display order.
var Classes = []ErrorClass{ClassRateLimited, ClassOverloaded, ClassServer, ClassClient,
	ClassTimeout, ClassConnection, ClassStream, ClassCanceled, ClassOther}

// RateHeaders are the rate-limit hints a server attached to a response.
type RateHeaders struct {
	RetryAfter time.Duration     `json:"retry_after_ms,omitempty"`
	Limits     map[string]string `json:"headers,omitempty"` // x-ratelimit-* as sent
}

// Failure is a classified request failure. Providers return it so the engine
// never has to guess from an error string.
type Failure struct {
	Class      ErrorClass
	Status     int    // HTTP status, 0 when none
	Message    string // the server's message, trimmed, never containing secrets
	RetryAfter time.Duration
	Headers    map[string]string // rate-limit headers, when present
}

func (f *Failure) Error() string {
	if f.Status != 0 {
		return fmt.Sprintf("%s (%d): %s", f.Class, f.Status, f.Message)
	}
	return fmt.Sprintf("%s: %s", f.Class, f.Message)
}

// ClassForStatus maps an HTTP status to its class.
func ClassForStatus(status int) ErrorClass {
	switch {
	case status == 429:
		return ClassRateLimited
	case status == 503 || status == 529:
		return ClassOverloaded
	case status >= 500:
		return ClassServer
	case status == 408:
		return ClassTimeout
	case status >= 400:
		return ClassClient
	}
	return ClassOther
}

// Classify turns any error a provider returned into a Failure.
func Classify(err error) *Failure {
	if err == nil {
		return nil
	}
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		return &Failure{Class: ClassCanceled, Message: msg}
	case errors.Is(err, context.DeadlineExceeded):
		return &Failure{Class: ClassTimeout, Message: msg}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return &Failure{Class: ClassTimeout, Message: msg}
		}
		return &Failure{Class: ClassConnection, Message: msg}
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return &Failure{Class: ClassConnection, Message: msg}
	}
	return &Failure{Class: ClassOther, Message: msg}
}
