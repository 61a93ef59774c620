package config

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: no input may panic the config loader, and every rejection is
// a one-line *Error.
func FuzzParse(f *testing.F) {
	f.Add("[sweep]\nlevels = [1, 2, 4]\nwarmup = \"1s\"\n")
	f.Add("[target]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:8000/v1\"\n")
	f.Add("[workload]\nmax_tokens = 0\n")
	f.Add("[workload.extra_body]\ntop_k = 20\n")
	f.Add("[slo]\nttft_p95 = \"500ms\"\nat_concurrency = 8\n")
	f.Add("[[sweep]]\n")
	f.Add("levels = [1,2]\n")
	f.Fuzz(func(t *testing.T, text string) {
		_, err := Parse("fuzz.toml", text, Default())
		if err == nil {
			return
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%T is not a *config.Error: %v", err, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("error is not one line: %q", err.Error())
		}
	})
}

// FuzzParseLevels: the --levels flag never panics.
func FuzzParseLevels(f *testing.F) {
	for _, s := range []string{"1,2,4", "1..512", "0", "-1", "1..", "..", "9999999999999999999", " , ,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := ParseLevels(s)
		if err == nil {
			for _, l := range ls {
				if l < 1 {
					t.Fatalf("%q gave level %d", s, l)
				}
			}
		}
	})
}
