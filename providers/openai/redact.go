package openai

import (
	"net/url"
	"strings"
)

// Ecosystem defaults for where the endpoint and key come from.
const (
	DefaultBaseURL = "https://api.openai.com/v1"
	EnvAPIKey      = "OPENAI_API_KEY"
	EnvBaseURL     = "OPENAI_BASE_URL"
)

// ResolveKey returns the API key from the environment: the variable named
// by apiKeyEnv when set (config `api_key_env`), else OPENAI_API_KEY. env is
// os.Getenv in production and a map lookup in tests.
func ResolveKey(env func(string) string, apiKeyEnv string) string {
	if apiKeyEnv != "" {
		return strings.TrimSpace(env(apiKeyEnv))
	}
	return strings.TrimSpace(env(EnvAPIKey))
}

// ResolveBaseURL returns the base URL: flag (or config) when set, else
// OPENAI_BASE_URL, else the OpenAI API.
func ResolveBaseURL(env func(string) string, flag string) string {
	if flag != "" {
		return flag
	}
	if v := strings.TrimSpace(env(EnvBaseURL)); v != "" {
		return v
	}
	return DefaultBaseURL
}

// RedactURL returns a URL fit for display: without user:password and with
// the values of query parameters that look like credentials (key, token,
// sig, secret, password) replaced. Unparseable input is not echoed back.
func RedactURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "(invalid URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if looksSecret(k) {
				q[k] = []string{"REDACTED"}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func looksSecret(param string) bool {
	p := strings.ToLower(param)
	for _, s := range [...]string{"key", "token", "sig", "secret", "password", "auth"} {
		if strings.Contains(p, s) {
			return true
		}
	}
	return false
}

// redactor removes known secrets from any text before it leaves the
// provider (error messages, descriptions). Servers do echo keys back in
// error bodies, so every message passes through it.
type redactor struct{ secrets []string }

const redacted = "[REDACTED]"

func newRedactor(key, baseURL string) redactor {
	var r redactor
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			r.secrets = append(r.secrets, s)
		}
	}
	add(key)
	if u, err := url.Parse(baseURL); err == nil {
		if u.User != nil {
			if pw, ok := u.User.Password(); ok {
				add(pw)
				add(url.QueryEscape(pw))
			}
			add(u.User.Username())
		}
		for k, vs := range u.Query() {
			if looksSecret(k) {
				for _, v := range vs {
					add(v)
					add(url.QueryEscape(v))
				}
			}
		}
	}
	return r
}

// clean replaces every secret in s.
func (r redactor) clean(s string) string {
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

// cleanValues replaces secrets in the values of m in place and returns m:
// rate-limit headers are shown on the dashboard as sent, and a server may
// echo anything anywhere. With no secrets known it costs nothing.
func (r redactor) cleanValues(m map[string]string) map[string]string {
	if len(r.secrets) == 0 {
		return m
	}
	for k, v := range m {
		m[k] = r.clean(v)
	}
	return m
}
