package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kneepoint/kneepoint/engine"
)

// Seeds live in testdata/fuzz/<FuzzName>/ (go test's corpus format); the
// recorded fixtures are added too, so every dialect is a starting point.

func addFixtureSeeds(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*.txt"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
}

// FuzzScanChunk: no input panics, and every valid JSON object nested no
// deeper than maxDepth is accepted (the scanner may be more lenient than
// JSON, never stricter).
func FuzzScanChunk(f *testing.F) {
	f.Add([]byte(benchChunk))
	f.Add([]byte(`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`))
	f.Add([]byte(`{"error":{"message":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := scanChunk(data)
		if err != nil && json.Valid(data) && nesting(data) < maxDepth && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
			t.Fatalf("valid JSON object %q rejected: %v", data, err)
		}
		if err != nil && info != (chunkInfo{}) {
			t.Fatalf("error %v with info %+v", err, info)
		}
		if info.promptTokens < 0 || info.completionTokens < 0 {
			t.Fatalf("negative usage %+v", info)
		}
	})
}

// FuzzStream: any body, read as an event stream, ends in success or a
// Failure; success always has output.
func FuzzStream(f *testing.F) {
	f.Add(benchBody(3))
	addFixtureSeeds(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		tr := &engine.Trace{}
		tr.Start(time.Now())
		out := readStream(bufio.NewReaderSize(bytes.NewReader(body), 64), tr, wallClock{})
		if out.readErr != nil {
			t.Fatalf("read error from a bytes.Reader: %v", out.readErr)
		}
		if out.failure == nil && tr.Chunks() < 1 {
			t.Fatalf("success without output for %q", body)
		}
		if out.failure != nil && out.failure.Class != engine.ClassStream {
			t.Fatalf("class %s", out.failure.Class)
		}
	})
}

// FuzzRetryAfter: Retry-After and reset values never panic and always give
// a wait between 0 and a day.
func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"7", "1.5", "0", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "6m0s", "12ms", "1h2m3.5s", "NaN", "1e400", "9223372036854775807"} {
		f.Add(s)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		check := func(what string, d time.Duration, ok bool) {
			if d < 0 || d > maxWait || (!ok && d != 0) {
				t.Fatalf("%s(%q) = %v, %v", what, v, d, ok)
			}
		}
		d, ok := ParseRetryAfterValue(v, now)
		check("ParseRetryAfterValue", d, ok)
		d, ok = ParseResetDuration(v)
		check("ParseResetDuration", d, ok)
		h := http.Header{}
		h.Set("Retry-After-Ms", v)
		h.Set("X-Ratelimit-Remaining-Requests", "0")
		h.Set("X-Ratelimit-Reset-Requests", v)
		d = retryAfter(h, 429, now)
		check("retryAfter", d, true)
	})
}

// FuzzErrorBody: any error body yields a short, valid message.
func FuzzErrorBody(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"Rate limit","code":"rate_limit_exceeded"}}`), "application/json")
	f.Add([]byte(`<html><title>502 Bad Gateway</title></html>`), "text/html")
	f.Add([]byte(`{"detail":[{"msg":"Field required"}]}`), "")
	f.Fuzz(func(t *testing.T, body []byte, ctype string) {
		msg := trimMessage(describeBody(502, ctype, body))
		if utf8.RuneCountInString(msg) > maxMessage+1 {
			t.Fatalf("message too long: %d runes", utf8.RuneCountInString(msg))
		}
		if !utf8.ValidString(msg) && utf8.ValidString(string(body)) {
			t.Fatalf("invalid UTF-8 from valid input: %q", msg)
		}
		if strings.ContainsAny(msg, "\n\r\t") {
			t.Fatalf("message spans lines: %q", msg)
		}
	})
}

// nesting is the deepest bracket nesting of a JSON text, outside strings.
func nesting(b []byte) int {
	depth, deepest, inStr := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}
