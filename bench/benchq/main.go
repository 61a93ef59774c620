// Command benchq prints fields of a JSON document for bench/compare.sh, so
// the script needs neither jq nor curl:
//
//	benchq results.json levels.0.output_tokens_per_s levels.0.ttft_ms.p50
//	benchq http://127.0.0.1:8000/stats tokens
//
// A path is dot-separated object keys and array indices. Each value is
// printed on its own line (numbers as plain decimals); a missing field
// prints "NA" and makes the exit status 1. URLs must be on 127.0.0.1.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: benchq FILE|URL PATH...")
		os.Exit(2)
	}
	raw, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchq: %v\n", err)
		os.Exit(1)
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		fmt.Fprintf(os.Stderr, "benchq: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	code := 0
	for _, p := range os.Args[2:] {
		v, ok := lookup(doc, p)
		if !ok {
			fmt.Println("NA")
			code = 1
			continue
		}
		fmt.Println(format(v))
	}
	os.Exit(code)
}

func load(src string) ([]byte, error) {
	if !strings.HasPrefix(src, "http://") {
		return os.ReadFile(src)
	}
	u, err := url.Parse(src)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return nil, fmt.Errorf("%s: only http://127.0.0.1 URLs", src)
	}
	c := http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(src)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}

func lookup(v any, path string) (any, bool) {
	for _, k := range strings.Split(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = t[k]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func format(v any) string {
	switch t := v.(type) {
	case json.Number:
		return t.String()
	case string:
		return t
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
