package config

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// FromArgs builds the configuration for a run: defaults, then the --config
// file, then flags, then environment defaults (OPENAI_BASE_URL). getenv is
// injected so the CLI is testable end to end.
func FromArgs(name string, args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	d := Default()
	var (
		file         = fs.String("config", "", "TOML config file (see sample.toml)")
		provider     = fs.String("provider", d.Target.Provider, "sim or openai")
		simProfile   = fs.String("sim-profile", d.Target.SimProfile, "built-in simulator profile")
		baseURL      = fs.String("base-url", "", "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (implies --provider openai)")
		model        = fs.String("model", "", "model name")
		apiKeyEnv    = fs.String("api-key-env", d.Target.APIKeyEnv, "environment variable that holds the API key")
		timeout      = fs.Duration("timeout", d.Target.Timeout.D(), "per-request timeout")
		levels       = fs.String("levels", "", "concurrency levels, e.g. 1,2,4,8")
		duration     = fs.Duration("level-duration", d.Sweep.Duration.D(), "measurement window per level")
		warmup       = fs.Duration("warmup", d.Sweep.Warmup.D(), "warmup per level (run, not counted)")
		perLevel     = fs.Int("requests-per-level", 0, "end each window after this many requests instead of a duration")
		stopAfter    = fs.Int("stop-after-knee", d.Sweep.StopAfterKnee, "levels to run past the knee (0: whole plan)")
		retries      = fs.Int("max-retries", 0, "retry failed requests this many times (opt-in)")
		grace        = fs.Duration("grace", d.Sweep.Grace.D(), "how long in-flight requests may finish after a stop")
		seed         = fs.Int64("seed", d.Sweep.Seed, "random seed (prompts, simulator)")
		promptTokens = fs.Int("prompt-tokens", d.Workload.PromptTokens, "prompt length in tokens")
		maxTokens    = fs.Int("max-tokens", d.Workload.MaxTokens, "max output tokens")
		stream       = fs.Bool("stream", true, "stream responses (false: non-streaming requests)")
		ignoreEOS    = fs.Bool("ignore-eos", false, "ask the server to ignore EOS (vLLM, SGLang)")
		promptsFile  = fs.String("prompts-file", "", "JSONL file of prompts")
		thinkTime    = fs.Duration("think-time", 0, "pause between a worker's requests")
		theme        = fs.String("theme", d.UI.Theme, "dashboard theme: dark, light, okabe-ito")
		out          = fs.String("out", "", "write results: comma-separated files, format by extension (.json .md .csv .svg .png)")
		headless     = fs.Bool("headless", false, "no dashboard: progress on stderr, table on stdout")
		failOnSLO    = fs.Bool("fail-on-slo", false, "exit 3 when the SLOs are not met at [slo] at_concurrency")
	)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return d, err
		}
		return d, &Error{Msg: oneLine(err.Error())}
	}
	if fs.NArg() > 0 {
		return d, &Error{Msg: fmt.Sprintf("unexpected argument %q (flags start with --)", fs.Arg(0))}
	}
	c := d
	if *file != "" {
		var err error
		if c, err = readFile(*file, d); err != nil {
			return d, err
		}
	}
	flagFor := map[string]string{}
	var ferr error
	fs.Visit(func(f *flag.Flag) {
		if ferr != nil {
			return
		}
		key := ""
		switch f.Name {
		case "provider":
			c.Target.Provider, key = *provider, "target.provider"
		case "sim-profile":
			c.Target.SimProfile, key = *simProfile, "target.sim_profile"
		case "base-url":
			c.Target.BaseURL, key = *baseURL, "target.base_url"
		case "model":
			c.Target.Model, key = *model, "target.model"
		case "api-key-env":
			c.Target.APIKeyEnv, key = *apiKeyEnv, "target.api_key_env"
		case "timeout":
			c.Target.Timeout, key = Duration(*timeout), "target.timeout"
		case "levels":
			ls, err := ParseLevels(*levels)
			if err != nil {
				ferr = &Error{Key: "sweep.levels", Where: "flag --levels", Msg: err.Error()}
			}
			c.Sweep.Levels, key = ls, "sweep.levels"
		case "level-duration":
			c.Sweep.Duration, key = Duration(*duration), "sweep.duration"
		case "warmup":
			c.Sweep.Warmup, key = Duration(*warmup), "sweep.warmup"
		case "requests-per-level":
			c.Sweep.RequestsPerLevel, key = *perLevel, "sweep.requests_per_level"
		case "stop-after-knee":
			c.Sweep.StopAfterKnee, key = *stopAfter, "sweep.stop_after_knee"
		case "max-retries":
			c.Sweep.MaxRetries, key = *retries, "sweep.max_retries"
		case "grace":
			c.Sweep.Grace, key = Duration(*grace), "sweep.grace"
		case "seed":
			c.Sweep.Seed, key = *seed, "sweep.seed"
		case "prompt-tokens":
			c.Workload.PromptTokens, key = *promptTokens, "workload.prompt_tokens"
		case "max-tokens":
			c.Workload.MaxTokens, key = *maxTokens, "workload.max_tokens"
		case "stream":
			c.Workload.Stream, key = *stream, "workload.stream"
		case "ignore-eos":
			c.Workload.IgnoreEOS, key = *ignoreEOS, "workload.ignore_eos"
		case "prompts-file":
			c.Workload.PromptsFile, key = *promptsFile, "workload.prompts_file"
		case "think-time":
			c.Workload.ThinkTime, key = Duration(*thinkTime), "workload.think_time"
		case "theme":
			c.UI.Theme, key = *theme, "ui.theme"
		case "out":
			c.Output.Files, key = splitList(*out), "output.files"
		case "headless":
			c.Headless = *headless
		case "fail-on-slo":
			c.FailOnSLO = *failOnSLO
		}
		if key != "" {
			flagFor[key] = f.Name
		}
	})
	if ferr != nil {
		return d, ferr
	}
	if _, ok := flagFor["target.base_url"]; ok {
		if _, set := flagFor["target.provider"]; !set {
			c.Target.Provider = "openai"
		}
	}
	if c.Target.Provider == "openai" && c.Target.BaseURL == "" {
		c.Target.BaseURL = getenv("OPENAI_BASE_URL")
		if c.Target.BaseURL == "" {
			c.Target.BaseURL = "https://api.openai.com/v1"
		}
	}
	if err := c.Validate(); err != nil {
		return d, c.locate(err, flagFor)
	}
	return c, nil
}

// ParseLevels reads "1,2,4,8" (spaces allowed). A geometric range
// "1..512" doubles from the first to the last.
func ParseLevels(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if a, b, ok := strings.Cut(s, ".."); ok {
		lo, err1 := strconv.Atoi(strings.TrimSpace(a))
		hi, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil || lo < 1 || hi < lo {
			return nil, fmt.Errorf("%q is not a range like 1..512", s)
		}
		var ls []int
		for c := lo; c < hi; c *= 2 {
			ls = append(ls, c)
		}
		return append(ls, hi), nil
	}
	var ls []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", f)
		}
		if n < 1 {
			return nil, fmt.Errorf("%d is not a positive concurrency", n)
		}
		ls = append(ls, n)
	}
	if len(ls) == 0 {
		return nil, fmt.Errorf("need at least one level")
	}
	return ls, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func oneLine(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "\n", " ")) }
