package config

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error is a configuration error: which key, where it was set, what is
// wrong. Its text is one line.
type Error struct {
	Key   string // e.g. "sweep.levels", or "--levels" for a flag
	Where string // "file.toml:12", "flag" or ""
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// Load reads a TOML file over base. Unknown keys, wrong types and
// impossible values are errors naming the key, the file and the line.
func Load(path string, base Config) (Config, error) {
	c, err := readFile(path, base)
	if err != nil {
		return base, err
	}
	if err := c.Validate(); err != nil {
		return base, c.locate(err, nil)
	}
	return c, nil
}

// Parse decodes and validates TOML text (named path in errors) over base.
func Parse(path, text string, base Config) (Config, error) {
	c, err := decode(path, text, base)
	if err != nil {
		return base, err
	}
	if err := c.Validate(); err != nil {
		return base, c.locate(err, nil)
	}
	return c, nil
}

// readFile reads and decodes a file without validating it, so that flags
// may still override its values.
func readFile(path string, base Config) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return base, &Error{Key: "--config", Msg: fmt.Sprintf("no such file %q", path)}
		}
		return base, &Error{Key: "--config", Msg: err.Error()}
	}
	return decode(path, string(data), base)
}

// decode reads TOML text over base, rejecting unknown keys and wrong types.
func decode(path, text string, base Config) (Config, error) {
	c := base
	// Lists in the file replace the defaults rather than merge into them.
	probe := map[string]any{}
	if _, err := toml.Decode(text, &probe); err == nil {
		if sw, ok := probe["sweep"].(map[string]any); ok {
			if _, ok := sw["levels"]; ok {
				c.Sweep.Levels = nil
			}
		}
	}
	md, err := toml.Decode(text, &c)
	if err != nil {
		return base, decodeError(path, text, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return base, &Error{Key: k, Where: at(path, lineOf(text, und[0])), Msg: "unknown key" + suggest(k)}
	}
	c.File = path
	c.text = text
	return c, nil
}

// locate fills in where a validation error's key was set: a flag, or the
// line of the config file.
func (c Config) locate(err error, flagFor map[string]string) error {
	var ce *Error
	if !errors.As(err, &ce) || ce.Where != "" {
		return err
	}
	if f, ok := flagFor[ce.Key]; ok {
		ce.Where = "flag --" + f
		return err
	}
	if c.File != "" {
		if line := lineOf(c.text, strings.Split(ce.Key, ".")); line > 0 {
			ce.Where = at(c.File, line)
		}
	}
	return err
}

// decodeError turns the TOML library's error into our one-line form.
func decodeError(path, text string, err error) error {
	var pe toml.ParseError
	if pp := (*toml.ParseError)(nil); errors.As(err, &pp) {
		pe = *pp
	}
	if errors.As(err, &pe) || pe.Message != "" {
		key := pe.LastKey
		msg := pe.Message
		if pe.Usage != "" && !strings.Contains(msg, "duration") {
			msg = strings.TrimSpace(msg)
		}
		return &Error{Key: key, Where: at(path, pe.Position.Line), Msg: msg}
	}
	if m := typeErrRe.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg := m[3]
		if t := wrongTypeRe.FindStringSubmatch(msg); t != nil {
			msg = fmt.Sprintf("wrong type: a TOML %s where a %s is expected", t[1], t[2])
		}
		return &Error{Key: m[2], Where: at(path, line), Msg: msg}
	}
	return &Error{Where: path, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// The TOML library reports type mismatches as plain text.
var (
	typeErrRe   = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]+)"\): (.*)$`)
	wrongTypeRe = regexp.MustCompile(`TOML value has type (\w+); destination has type (\w+)`)
)

func at(path string, line int) string {
	if line <= 0 {
		return path
	}
	return fmt.Sprintf("%s:%d", path, line)
}

// lineOf finds the line where a dotted key is set: the `key =` line inside
// its [section], or the section header itself. 0 when not found.
func lineOf(text string, key []string) int {
	if len(key) == 0 {
		return 0
	}
	section, name := "", key[len(key)-1]
	if len(key) > 1 {
		section = strings.Join(key[:len(key)-1], ".")
	}
	keyRe := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(name) + `"?\s*=`)
	cur := ""
	for i, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") {
			cur = strings.Trim(t, "[] ")
			if len(key) > 1 && cur == strings.Join(key, ".") {
				return i + 1
			}
			if len(key) == 1 && cur == name {
				return i + 1
			}
			continue
		}
		if cur == section && keyRe.MatchString(line) {
			return i + 1
		}
	}
	return 0
}

// known lists every key, for "did you mean" hints.
var known = []string{
	"target.provider", "target.sim_profile", "target.base_url", "target.model", "target.api_key_env",
	"target.timeout", "target.http2", "target.lean_http", "target.skip_check",
	"workload.prompt_tokens", "workload.max_tokens", "workload.system_prompt", "workload.shared_prefix_tokens",
	"workload.stream", "workload.ignore_eos", "workload.temperature", "workload.prompts_file",
	"workload.extra_body", "workload.think_time",
	"sweep.levels", "sweep.warmup", "sweep.duration", "sweep.requests_per_level", "sweep.stop_after_knee",
	"sweep.max_error_share", "sweep.max_retries", "sweep.retry_after_cap", "sweep.grace", "sweep.seed",
	"slo.ttft_p95", "slo.ttft_p99", "slo.tpot_p95", "slo.tpot_p99", "slo.itl_p95", "slo.itl_p99",
	"slo.latency_p95", "slo.latency_p99", "slo.max_error_share", "slo.at_concurrency",
	"cost.input_per_million", "cost.output_per_million", "cost.per_hour", "cost.currency",
	"ui.theme", "output.files",
}

// suggest names the known key closest to k (at most two edits away in its
// last part), for typos like "warmpu".
func suggest(k string) string {
	last := k[strings.LastIndex(k, ".")+1:]
	best, bestD := "", 3
	for _, kn := range known {
		if d := editDistance(last, kn[strings.LastIndex(kn, ".")+1:]); d < bestD && kn != k {
			best, bestD = kn, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
