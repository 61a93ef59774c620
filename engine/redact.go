package engine

import (
	"net/url"
	"strings"
)

// RedactURL returns a base URL fit for any output (screen, report, error
// line): without user info, query or fragment, where keys hide (some
// gateways take them as ?api_key=). What does not parse as a URL loses
// anything before an @ and after a ? or #.
func RedactURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			raw = raw[i+1:]
		}
		if i := strings.IndexAny(raw, "?#"); i >= 0 {
			raw = raw[:i]
		}
		return raw
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
