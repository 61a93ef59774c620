package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// testCLI is a cli with captured streams, an empty environment and a
// signal channel the test drives.
func testCLI(env map[string]string) (cli, *bytes.Buffer, *bytes.Buffer, chan os.Signal) {
	var out, errb bytes.Buffer
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
