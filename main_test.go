package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// syncBuffer is a bytes.Buffer safe for concurrent writers, as os.Stderr
// is: the signal watcher and the headless progress both write to stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testCLI is a cli with captured streams, an empty environment and a
// signal channel the test drives.
func testCLI(env map[string]string) (cli, *syncBuffer, *syncBuffer, chan os.Signal) {
	var out, errb syncBuffer
	sig := make(chan os.Signal, 2)
	return cli{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv:  func(k string) string { return env[k] },
		signals: sig, exit: func(int) {},
	}, &out, &errb, sig
}

var quick = []string{"--sim-profile", "h200-llama3.2-1b", "--warmup", "100ms", "--level-duration", "400ms"}

func TestHeadlessSweepWritesResults(t *testing.T) {
	c, out, errb, _ := testCLI(nil)
	file := filepath.Join(t.TempDir(), "r.json")
	code := c.run(append(quick, "--levels", "1,4", "--out", file))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errb)
	}
	for _, want := range []string{"prompt 150 tok", "conc", "p95 ms", "knee:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	res, err := engine.ReadResults(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Levels) != 2 || res.Levels[1].Concurrency != 4 || res.Levels[1].Succeeded == 0 || res.Partial {
		t.Errorf("results: %+v", res.Levels)
	}
}

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"--levels", "0"},
		{"--max-tokens", "0"},
		{"--sim-profile", "nope"},
		{"--config", "/nonexistent/k.toml"},
		{"--base-url", "not a url"},
	} {
		c, _, errb, _ := testCLI(nil)
		if code := c.run(args); code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb)
		}
		if lines := strings.Count(strings.TrimSpace(errb.String()), "\n"); lines != 0 {
			t.Errorf("%v: %d lines on stderr, want one:\n%s", args, lines+1, errb)
		}
		if strings.Contains(errb.String(), "goroutine") || strings.Contains(errb.String(), "panic") {
			t.Errorf("%v: stack trace: %s", args, errb)
		}
	}
}

// TestSignalWritesPartialResults: SIGINT mid-run stops the sweep, the
// results file holds what was measured, marked partial, exit 130.
func TestSignalWritesPartialResults(t *testing.T) {
	c, _, errb, sig := testCLI(nil)
	file := filepath.Join(t.TempDir(), "r.json")
	go func() {
		time.Sleep(900 * time.Millisecond)
		sig <- syscall.SIGINT
	}()
	code := c.run(append(quick, "--levels", "1,2,4,8,16,32", "--out", file))
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errb)
	}
	res, err := engine.ReadResults(file)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Partial || res.PartialReason == "" || len(res.Levels) == 0 {
		t.Errorf("partial=%v reason=%q levels=%d", res.Partial, res.PartialReason, len(res.Levels))
	}
}

func TestVersion(t *testing.T) {
	c, out, _, _ := testCLI(nil)
	if c.run([]string{"version"}) != exitOK || !strings.Contains(out.String(), "kneepoint") {
		t.Errorf("version: %q", out)
	}
}

// TestFailOnSLO gates like a k6 threshold: exit 3 when the objectives are
// missed at slo.at_concurrency, 0 when they are met.
func TestFailOnSLO(t *testing.T) {
	for _, tt := range []struct {
		bound string
		want  int
	}{{"1ms", exitSLO}, {"60s", exitOK}} {
		f := filepath.Join(t.TempDir(), "slo.toml")
		os.WriteFile(f, []byte("[slo]\nlatency_p95 = \""+tt.bound+"\"\nat_concurrency = 2\n"), 0o644)
		c, _, errb, _ := testCLI(nil)
		code := c.run(append(quick, "--levels", "1,2", "--config", f, "--fail-on-slo"))
		if code != tt.want {
			t.Errorf("latency_p95 %s: exit %d, want %d (%s)", tt.bound, code, tt.want, errb)
		}
	}
}

func TestUnknownThemeIsUsageError(t *testing.T) {
	c, _, errb, _ := testCLI(nil)
	if code := c.run([]string{"--theme", "neon"}); code != exitUsage || !strings.Contains(errb.String(), "ui.theme") {
		t.Errorf("exit %d: %s", code, errb)
	}
}

// TestReplayWithoutTerminalPrintsTable: replay of a recorded file works
// without a network; off a terminal it prints the recorded table.
func TestReplayWithoutTerminalPrintsTable(t *testing.T) {
	c, _, errb, _ := testCLI(nil)
	file := filepath.Join(t.TempDir(), "r.json")
	if code := c.run(append(quick, "--levels", "1,2", "--out", file)); code != exitOK {
		t.Fatalf("sweep exit %d: %s", code, errb)
	}
	c, out, errb, _ := testCLI(nil)
	if code := c.run([]string{"replay", file}); code != exitOK || !strings.Contains(out.String(), "knee") {
		t.Errorf("replay exit %d: %s%s", code, out, errb)
	}
	for _, bad := range []string{filepath.Join(t.TempDir(), "missing.json"), "main.go"} {
		c, _, errb, _ = testCLI(nil)
		if code := c.run([]string{"replay", bad}); code != exitUsage || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
			t.Errorf("replay %s: exit %d, stderr %q", bad, code, errb)
		}
	}
}

// buildBinary compiles kneepoint once per test binary run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kneepoint")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestBinaryInterrupted: SIGINT and SIGTERM on the real binary stop the
// sweep, write what was measured marked partial, and exit 130; a second
// SIGINT exits at once even while in-flight requests are in their grace.
func TestBinaryInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(s.String(), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "r.json")
			cmd := exec.Command(bin, append(quick, "--headless", "--levels", "1,2,4,8,16,32,64", "--out", file)...)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond)
			cmd.Process.Signal(s)
			err := cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, exitInterrupted, errb.String())
			}
			res, err := engine.ReadResults(file)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Partial || res.PartialReason != "interrupted" || len(res.Levels) == 0 {
				t.Errorf("partial=%v reason=%q levels=%d", res.Partial, res.PartialReason, len(res.Levels))
			}
		})
	}
	t.Run("second SIGINT exits at once", func(t *testing.T) {
		// 4,096-token requests take ~20 s on the simulated 8B; the grace
		// would wait 30 s for them. The second signal must not.
		cmd := exec.Command(bin, "--headless", "--levels", "4", "--max-tokens", "4096", "--grace", "30s",
			"--warmup", "100ms", "--level-duration", "30s")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(700 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(300 * time.Millisecond)
		start := time.Now()
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("second SIGINT took %s to exit", d)
		}
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
			t.Errorf("exit %d, want %d", code, exitInterrupted)
		}
	})
}

// TestReportPlotCompare: the sharing subcommands over a recorded run.
func TestReportPlotCompare(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.json")
	c, _, errb, _ := testCLI(nil)
	if code := c.run(append(quick, "--levels", "1,2", "--out", file+","+filepath.Join(dir, "r.md")+","+filepath.Join(dir, "r.csv"))); code != exitOK {
		t.Fatalf("sweep exit %d: %s", code, errb)
	}
	for _, f := range []string{"r.md", "r.csv"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("--out %s not written: %v", f, err)
		}
	}
	tests := []struct {
		args []string
		want string // in stdout, or the file written
		file string
	}{
		{[]string{"report", file}, "## Knee", ""},
		{[]string{"report", file, "--format", "csv"}, "concurrency", ""},
		{[]string{"report", "--format", "json", file}, SchemaV1, ""},
		{[]string{"plot", file, "-o", filepath.Join(dir, "s.svg")}, "<svg", filepath.Join(dir, "s.svg")},
		{[]string{"compare", file, file}, "Ratios", ""},
		{[]string{"schema"}, "$schema", ""},
	}
	for _, tt := range tests {
		c, out, errb, _ := testCLI(nil)
		if code := c.run(tt.args); code != exitOK {
			t.Errorf("%v: exit %d: %s", tt.args, code, errb)
			continue
		}
		got := out.String()
		if tt.file != "" {
			b, _ := os.ReadFile(tt.file)
			got = string(b)
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("%v: output lacks %q", tt.args, tt.want)
		}
	}
	for _, args := range [][]string{{"report", "main.go"}, {"compare", file}, {"plot", file, "-o", "x.txt"}, {"report", file, "--format", "pdf"}} {
		c, _, errb, _ := testCLI(nil)
		if code := c.run(args); code != exitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errb)
		}
	}
}

const SchemaV1 = engine.SchemaV1

// Secrets used by TestSecretsNeverLeak: an API key in each of the two
// places it can come from, and a password, user name and query key in the
// base URL. None may appear in anything kneepoint prints or writes.
const (
	leakKey       = "sk-kneepoint-SECRET-123"
	leakCustomKey = "sk-custom-SECRET-789"
	leakUser      = "kpuser"
	leakPassword  = "hunter2pw"
	leakQueryKey  = "qs-SECRET-456"
)

// leakyServer is an OpenAI-compatible endpoint that echoes everything it
// gets (Authorization, the URL with its query) back in its errors: 401,
// 429, 500, an HTML 502 and an error event mid-stream, in turn with good
// streams and a redirect to another host. Under /deny/ it refuses the key
// when models are listed, echoing it.
type leakyServer struct {
	srv, other *httptest.Server
	mu         sync.Mutex
	n          int
	keysSeen   map[string]int // Authorization values on the target
	redirects  int
	otherHits  int
	otherAuth  []string // Authorization values the redirect target received
}

func newLeakyServer(t *testing.T) *leakyServer {
	ls := &leakyServer{keysSeen: map[string]int{}}
	okStream := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		for _, tok := range []string{"a", " b", " c"} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", tok)
			w.(http.Flusher).Flush()
			time.Sleep(2 * time.Millisecond)
		}
		io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
		io.WriteString(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":3,\"total_tokens\":13}}\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}
	ls.other = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		ls.mu.Lock()
		ls.otherHits++
		if a := r.Header.Get("Authorization"); a != "" {
			ls.otherAuth = append(ls.otherAuth, a)
		}
		ls.mu.Unlock()
		okStream(w)
	}))
	ls.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		auth := r.Header.Get("Authorization")
		echo := fmt.Sprintf("auth %q url %q", auth, r.URL.String())
		ls.mu.Lock()
		ls.keysSeen[auth]++
		ls.mu.Unlock()
		jsonErr := func(status int, msg string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "code": auth}})
			w.Write(b)
		}
		if strings.HasSuffix(r.URL.Path, "/models") {
			if strings.HasPrefix(r.URL.Path, "/deny/") {
				jsonErr(http.StatusUnauthorized, "Incorrect API key provided: "+echo)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"m","object":"model","owned_by":"test"}]}`)
			return
		}
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			jsonErr(http.StatusNotFound, "no route "+echo)
			return
		}
		ls.mu.Lock()
		ls.n++
		n := ls.n
		ls.mu.Unlock()
		switch n % 8 {
		case 1:
			jsonErr(http.StatusUnauthorized, "Incorrect API key provided: "+echo)
		case 2:
			w.Header().Set("retry-after-ms", "5")
			jsonErr(http.StatusTooManyRequests, "Rate limit reached for "+echo)
		case 3:
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, "internal error; request was "+echo)
		case 4:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "<html><head><title>502 for %s</title></head><body>%s</body></html>", echo, echo)
		case 5:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": "upstream rejected " + echo}})
			fmt.Fprintf(w, "data: %s\n\n", b)
		case 6:
			ls.mu.Lock()
			ls.redirects++
			ls.mu.Unlock()
			http.Redirect(w, r, ls.other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
		default:
			okStream(w)
		}
	}))
	t.Cleanup(func() {
		ls.srv.Close()
		ls.other.Close()
	})
	return ls
}

// TestSecretsNeverLeak runs the CLI end to end against a server that
// echoes credentials in every error and redirects to another host, then
// the sharing subcommands on what it wrote, and sweeps stdout, stderr and
// every written file for the secrets.
func TestSecretsNeverLeak(t *testing.T) {
	ls := newLeakyServer(t)
	dir := t.TempDir()
	host := strings.TrimPrefix(ls.srv.URL, "http://")
	secretURL := func(prefix string) string {
		return "http://" + leakUser + ":" + leakPassword + "@" + host + prefix + "/v1?api_key=" + leakQueryKey
	}
	env := map[string]string{"OPENAI_API_KEY": leakKey, "MY_LLM_KEY": leakCustomKey}
	sweepArgs := []string{"--model", "m", "--levels", "1,2", "--warmup", "100ms", "--level-duration", "500ms",
		"--timeout", "3s", "--max-tokens", "8", "--prompt-tokens", "16", "--stop-after-knee", "0"}
	out := func(name string) string { return filepath.Join(dir, name) }
	outs := func(base string) string {
		return strings.Join([]string{out(base + ".json"), out(base + ".md"), out(base + ".csv"), out(base + ".svg")}, ",")
	}

	type step struct {
		name string
		args []string
		want int // exit code
	}
	steps := []step{
		{"sweep, key from OPENAI_API_KEY, plain URL", append([]string{"--base-url", ls.srv.URL + "/ok/v1", "--out", outs("plain")}, sweepArgs...), exitOK},
		{"sweep, key from OPENAI_API_KEY, URL with credentials", append([]string{"--base-url", secretURL("/ok"), "--out", outs("creds")}, sweepArgs...), exitOK},
		{"sweep, key from --api-key-env", append([]string{"--base-url", secretURL("/ok"), "--api-key-env", "MY_LLM_KEY", "--out", outs("custom")}, sweepArgs...), exitOK},
		{"sweep, key refused at the check", append([]string{"--base-url", secretURL("/deny"), "--out", out("deny.json")}, sweepArgs...), exitError},
		{"report", []string{"report", out("creds.json")}, exitOK},
		{"report csv", []string{"report", out("creds.json"), "--format", "csv"}, exitOK},
		{"report json", []string{"report", out("creds.json"), "--format", "json"}, exitOK},
		{"report to file", []string{"report", out("custom.json"), "-o", out("report.md")}, exitOK},
		{"plot", []string{"plot", out("creds.json"), "-o", out("plot.svg")}, exitOK},
		{"compare", []string{"compare", out("plain.json"), out("creds.json"), out("custom.json")}, exitOK},
		{"compare to file", []string{"compare", out("creds.json"), out("custom.json"), "-o", out("cmp.csv")}, exitOK},
		{"replay", []string{"replay", out("creds.json")}, exitOK},
		{"models", []string{"models", "--base-url", secretURL("/ok")}, exitOK},
		{"models, key refused", []string{"models", "--base-url", secretURL("/deny")}, exitError},
		{"models, custom key refused", []string{"models", "--base-url", secretURL("/deny"), "--api-key-env", "MY_LLM_KEY"}, exitError},
	}
	secrets := []string{leakKey, leakCustomKey, leakPassword, leakQueryKey, leakUser,
		"SECRET", // any part of any of them
	}
	check := func(where, s string) {
		t.Helper()
		for _, sec := range secrets {
			if strings.Contains(s, sec) {
				i := strings.Index(s, sec)
				t.Errorf("%s leaks %q: …%s…", where, sec, s[max(0, i-80):min(len(s), i+len(sec)+40)])
			}
		}
	}
	for _, st := range steps {
		c, stdout, stderr, _ := testCLI(env)
		code := c.run(st.args)
		if code != st.want {
			t.Errorf("%s: exit %d, want %d\n%s", st.name, code, st.want, stderr)
		}
		check(st.name+": stdout", stdout.String())
		check(st.name+": stderr", stderr.String())
		if st.name == "models" && !strings.Contains(stdout.String(), "m") {
			t.Errorf("models: stdout %q, want the model listed", stdout)
		}
		if strings.Contains(st.name, "refused") && !strings.Contains(stderr.String(), "[REDACTED]") {
			t.Errorf("%s: stderr %q: want the echoed key shown redacted", st.name, stderr)
		}
	}

	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) < 14 {
		t.Errorf("only %d files written: %v", len(files), files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check(filepath.Base(f), string(b))
	}
	// The echoes did reach kneepoint: the recorded errors carry them,
	// redacted.
	for _, f := range []string{"plain.json", "creds.json", "custom.json"} {
		res, err := engine.ReadResults(out(f))
		if err != nil {
			t.Fatal(err)
		}
		redactedErrors := 0
		for _, l := range res.Levels {
			if l.Failed == 0 || l.Succeeded == 0 {
				t.Errorf("%s c=%d: %d ok, %d failed: want both", f, l.Concurrency, l.Succeeded, l.Failed)
			}
			if strings.Contains(l.LastError, "[REDACTED]") {
				redactedErrors++
			}
		}
		if redactedErrors == 0 {
			t.Errorf("%s: no level's last error shows a redacted echo: %+v", f, res.Levels)
		}
		if strings.Contains(res.Target.BaseURL, "@") {
			t.Errorf("%s: target URL %q", f, res.Target.BaseURL)
		}
	}

	// Only the server given was sent the key, and the right one; the
	// host it redirected to got requests without any Authorization.
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for auth, n := range ls.keysSeen {
		if auth != "Bearer "+leakKey && auth != "Bearer "+leakCustomKey {
			t.Errorf("target received Authorization %q %d times", auth, n)
		}
	}
	if ls.keysSeen["Bearer "+leakCustomKey] == 0 {
		t.Error("--api-key-env's key was never sent")
	}
	if ls.redirects == 0 || ls.otherHits == 0 || ls.otherHits > ls.redirects {
		t.Errorf("%d redirects, %d requests at the other host", ls.redirects, ls.otherHits)
	}
	if len(ls.otherAuth) > 0 {
		t.Errorf("the redirect target received Authorization %q", ls.otherAuth)
	}
}
