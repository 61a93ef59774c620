package openai

import (
	"net/http"
	"net/url"
	"strings"
)

// A base URL may carry a query that every request needs: Azure's
// ?api-version=..., or a gateway's ?api_key=... (then redacted everywhere
// it could be shown). Endpoint paths go before it, not after it:
// "…/v1?api-version=x" + "/chat/completions" would send the request to
// …/v1 with a mangled query.

// splitQuery cuts a normalised base URL into its root and raw query.
func splitQuery(base string) (root, rawQuery string) {
	root, rawQuery, _ = strings.Cut(base, "?")
	return root, rawQuery
}

// withQuery appends the base URL's query to an endpoint URL.
func withQuery(endpoint, rawQuery string) string {
	if rawQuery == "" {
		return endpoint
	}
	return endpoint + "?" + rawQuery
}

// queryDoer adds the base URL's query parameters to requests made through
// go-openai, which builds its URLs as BaseURL + path.
type queryDoer struct {
	client *http.Client
	query  url.Values
}

func (d queryDoer) Do(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	for k, vs := range d.query {
		if _, set := q[k]; !set {
			q[k] = vs
		}
	}
	req.URL.RawQuery = q.Encode()
	return d.client.Do(req)
}
