package config

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func noenv(string) string { return "" }

func TestSampleTOMLIsTheDefault(t *testing.T) {
	c, err := Load("../../sample.toml", Default())
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	d.File, c.File, c.text = "", "", ""
	if c.Target != d.Target || c.Workload.PromptTokens != 150 || c.Workload.MaxTokens != 128 ||
		len(c.Sweep.Levels) != len(d.Sweep.Levels) || c.Sweep.Warmup != d.Sweep.Warmup || c.Sweep.Duration != d.Sweep.Duration {
		t.Errorf("sample.toml drifted from the defaults:\n%+v\n%+v", c, d)
	}
}

// TestBadConfig: each mistake gets one line naming the key and the line.
func TestBadConfig(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"unknown key", "[sweep]\nlevels = [1]\nwarmpu = \"1s\"\n", []string{"x.toml:3", "sweep.warmpu", "unknown key", "did you mean sweep.warmup"}},
		{"unknown section", "[sweeep]\nlevels = [1]\n", []string{"x.toml:1", "sweeep", "unknown key"}},
		{"wrong type", "[sweep]\nlevels = \"1,2\"\n", []string{"x.toml:2", "levels"}},
		{"bad duration", "[sweep]\nwarmup = \"soon\"\n", []string{"x.toml:2", "not a duration"}},
		{"zero level", "[sweep]\nlevels = [1, 0, 4]\n", []string{"x.toml:2", "sweep.levels", "0 is not a positive"}},
		{"negative level", "[sweep]\nlevels = [-2]\n", []string{"sweep.levels", "-2"}},
		{"empty levels", "[sweep]\nlevels = []\n", []string{"sweep.levels", "at least one"}},
		{"warmup longer than window", "[sweep]\nwarmup = \"10s\"\nduration = \"5s\"\n", []string{"x.toml:2", "sweep.warmup", "longer than"}},
		{"max_tokens 0", "[workload]\nmax_tokens = 0\n", []string{"x.toml:2", "workload.max_tokens"}},
		{"malformed URL", "[target]\nprovider = \"openai\"\nbase_url = \"localhost:8000\"\n", []string{"x.toml:3", "target.base_url", "not an http(s) URL"}},
		{"bad provider", "[target]\nprovider = \"grpc\"\n", []string{"target.provider", "grpc"}},
		{"syntax", "[sweep\nlevels = [1]\n", []string{"x.toml:", "table name"}},
		{"error share", "[sweep]\nmax_error_share = 2.0\n", []string{"sweep.max_error_share"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("x.toml", tt.text, Default())
			if err == nil {
				t.Fatal("accepted")
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("%T is not a *config.Error: %v", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("not one line: %q", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestFlagsOverrideFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "k.toml")
	os.WriteFile(f, []byte("[sweep]\nlevels = [1, 2]\nduration = \"9s\"\n[workload]\nmax_tokens = 64\n"), 0o644)
	c, err := FromArgs("kneepoint", []string{"--config", f, "--levels", "4,8", "--max-tokens", "32"}, noenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sweep.Levels) != 2 || c.Sweep.Levels[0] != 4 || c.Workload.MaxTokens != 32 || c.Sweep.Duration.D() != 9*time.Second {
		t.Errorf("got levels %v max_tokens %d duration %s", c.Sweep.Levels, c.Workload.MaxTokens, c.Sweep.Duration)
	}
}

func TestFlagErrorsNameTheFlag(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--levels", "1,x"}, "flag --levels"},
		{[]string{"--levels", "0"}, "flag --levels"},
		{[]string{"--max-tokens", "0"}, "flag --max-tokens: workload.max_tokens"},
		{[]string{"--base-url", "ftp://x"}, "flag --base-url"},
		{[]string{"--warmup", "1m"}, "flag --warmup"},
		{[]string{"--config", "/nonexistent.toml"}, "no such file"},
		{[]string{"--bogus"}, "bogus"},
		{[]string{"stray"}, "unexpected argument"},
	}
	for _, tt := range tests {
		_, err := FromArgs("kneepoint", tt.args, noenv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err %v, want it to mention %q", tt.args, err, tt.want)
		}
	}
}

func TestBaseURLImpliesOpenAIAndEnvDefault(t *testing.T) {
	c, err := FromArgs("kneepoint", []string{"--base-url", "http://127.0.0.1:9/v1"}, noenv, io.Discard)
	if err != nil || c.Target.Provider != "openai" {
		t.Fatalf("provider %q err %v", c.Target.Provider, err)
	}
	env := func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return "http://127.0.0.1:7/v1"
		}
		return ""
	}
	c, err = FromArgs("kneepoint", []string{"--provider", "openai"}, env, io.Discard)
	if err != nil || c.Target.BaseURL != "http://127.0.0.1:7/v1" {
		t.Fatalf("base url %q err %v", c.Target.BaseURL, err)
	}
}

func TestParseLevels(t *testing.T) {
	ls, err := ParseLevels("1..64")
	if err != nil || len(ls) != 7 || ls[6] != 64 {
		t.Errorf("1..64 = %v %v", ls, err)
	}
	ls, err = ParseLevels(" 1, 3 ,5")
	if err != nil || len(ls) != 3 || ls[1] != 3 {
		t.Errorf("got %v %v", ls, err)
	}
}

func TestRedactURL(t *testing.T) {
	if got := redactURL("http://user:sekret@host/v1"); strings.Contains(got, "sekret") {
		t.Errorf("credentials shown: %s", got)
	}
}
