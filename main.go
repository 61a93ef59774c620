// Command kneepoint shows, live, where an LLM endpoint saturates: it holds
// exactly N requests in flight, sweeps N over levels and marks the knee.
//
// main is the composition root: it wires config, providers, engine and ui,
// and nothing else. Standard streams, environment and signals are injected
// (as in k6) so the whole CLI is testable end to end.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/kneepoint/kneepoint/engine"
	"github.com/kneepoint/kneepoint/engine/config"
	"github.com/kneepoint/kneepoint/engine/report"
	"github.com/kneepoint/kneepoint/providers"
	"github.com/kneepoint/kneepoint/providers/sim"
	"github.com/kneepoint/kneepoint/providers/simserver"
	"github.com/kneepoint/kneepoint/themes"
	"github.com/kneepoint/kneepoint/ui"
)

// version is stamped with -ldflags "-X main.version=..." in releases.
var version = "0.1.0-dev"

// Exit codes.
const (
	exitOK          = 0
	exitError       = 1   // the run could not be done (unreachable target, write failed)
	exitUsage       = 2   // bad flags or config
	exitSLO         = 3   // --fail-on-slo and the SLOs were not met
	exitInterrupted = 130 // stopped by q, ctrl+c, SIGINT or SIGTERM
)

// cli is one invocation: its streams, environment and signals.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	signals        <-chan os.Signal
	tty            bool      // stdout and stdin are a terminal: the dashboard can run
	exit           func(int) // immediate exit on a second interrupt
}

func main() {
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	c := cli{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		signals: sig, tty: isTerminal(os.Stdout) && isTerminal(os.Stdin), exit: os.Exit,
	}
	os.Exit(c.run(os.Args[1:]))
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const usage = `kneepoint: find where an LLM endpoint saturates.

Usage:
  kneepoint [flags]                     sweep (dashboard on a terminal, --headless otherwise)
  kneepoint serve-sim [--addr A] [--profile P]
                                        the simulator as an OpenAI-compatible server
  kneepoint models --base-url URL       list a server's models
  kneepoint replay results.json         show a recorded run in the dashboard (no requests sent)
  kneepoint report results.json [--format md|csv|json] [-o FILE]
  kneepoint plot results.json -o sweep.svg|sweep.png
  kneepoint compare a.json b.json [...] [-o FILE.md|.csv|.svg|.png]
  kneepoint schema                      the JSON Schema of results files
  kneepoint version

Run 'kneepoint --help' for the sweep's flags; sample.toml documents every config key.
`

func (c cli) run(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "serve-sim":
			return c.serveSim(args[1:])
		case "models":
			return c.models(args[1:])
		case "replay":
			return c.replay(args[1:])
		case "report":
			return c.report(args[1:])
		case "plot":
			return c.plot(args[1:])
		case "compare":
			return c.compare(args[1:])
		case "schema":
			b, err := report.ResultsSchema()
			if err != nil {
				return c.fail(err)
			}
			c.stdout.Write(b)
			return exitOK
		case "version":
			fmt.Fprintf(c.stdout, "kneepoint %s\n", version)
			return exitOK
		case "help":
			fmt.Fprint(c.stdout, usage)
			return exitOK
		}
	}
	return c.sweep(args)
}

// fail prints one line and returns the exit code for err: configuration
// errors are usage errors (2), anything else a run error (1).
func (c cli) fail(err error) int {
	fmt.Fprintf(c.stderr, "kneepoint: %v\n", err)
	var ce *config.Error
	if errors.As(err, &ce) {
		return exitUsage
	}
	return exitError
}

// sweep is the main job: measure the target over the planned levels.
func (c cli) sweep(args []string) int {
	cfg, err := config.FromArgs("kneepoint", args, c.getenv, c.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return c.fail(err)
	}
	if _, err := themes.Lookup(cfg.UI.Theme); err != nil {
		return c.fail(&config.Error{Key: "ui.theme", Msg: fmt.Sprintf("%v (themes: %s)", err, strings.Join(themes.Names(), ", "))})
	}
	backend, err := providers.New(cfg, c.getenv)
	if err != nil {
		return c.fail(err)
	}
	defer backend.Close()
	if backend.Check != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		err := backend.Check(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(c.stderr, "kneepoint: %v\n", err)
			return exitError
		}
	}

	// A load generator allocates per request with a small live heap: a
	// higher GOGC and a soft memory limit cut GC work and bound memory at
	// high concurrency (see engine.TuneGC for the measured effect).
	engine.TuneGC(slices.Max(cfg.Sweep.Levels), c.getenv)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go c.watchSignals(ctx, cancel)

	opts := []engine.Option{
		engine.WithWorkload(cfg.EngineWorkload()),
		engine.WithSeed(cfg.Sweep.Seed),
		engine.WithVersion(version),
		engine.WithSLO(cfg.EngineSLO()),
		engine.WithCost(cfg.EngineCost()),
	}
	if d, ok := backend.Provider.(engine.Describer); ok {
		opts = append(opts, engine.WithTarget(d.Describe()))
	}
	run := engine.New(backend.Provider, cfg.Plan(), opts...)
	events := run.Start(ctx)

	var res engine.Results
	if cfg.Headless || !c.tty {
		res = c.headless(events)
	} else {
		target := engine.Target{}
		if d, ok := backend.Provider.(engine.Describer); ok {
			target = d.Describe()
		}
		res, err = ui.Run(ctx, events, run, ui.Options{
			Theme: cfg.UI.Theme, NoColor: c.getenv("NO_COLOR") != "",
			OutPath: strings.Join(cfg.Output.Files, ", "), Target: target,
			Plan: cfg.Plan(), Workload: cfg.EngineWorkload(),
			SLO: cfg.EngineSLO(), Cost: cfg.EngineCost(),
		})
		if err != nil {
			// ui.Run stops the run and waits for its results, so what was
			// measured is still written below.
			fmt.Fprintf(c.stderr, "kneepoint: dashboard: %v\n", err)
		}
	}
	code := exitOK
	if err := c.writeOutputs(cfg.Output.Files, res); err != nil {
		fmt.Fprintf(c.stderr, "kneepoint: %v\n", err)
		code = exitError
	}
	if res.Partial {
		fmt.Fprintf(c.stderr, "kneepoint: run stopped early (%s); results are partial\n", res.PartialReason)
		return exitInterrupted
	}
	if everyRequestFailed(res) {
		fmt.Fprintln(c.stderr, "kneepoint: every request failed; the errors by class are in the table above")
		return exitError
	}
	if cfg.FailOnSLO && code == exitOK {
		if v := res.SLOVerdict; v == nil || !v.Met {
			fmt.Fprintf(c.stderr, "kneepoint: SLOs not met at c=%d: %s\n", cfg.SLO.AtConcurrency, sloWhy(v))
			return exitSLO
		}
	}
	return code
}

// everyRequestFailed reports a run that measured levels but got no
// successful request: a scripted check must not mistake it for a pass.
func everyRequestFailed(res engine.Results) bool {
	if len(res.Levels) == 0 {
		return false
	}
	for _, l := range res.Levels {
		if l.Succeeded > 0 {
			return false
		}
	}
	return true
}

func sloWhy(v *engine.SLOVerdict) string {
	switch {
	case v == nil:
		return "no verdict"
	case v.Note != "":
		return v.Note
	}
	return strings.Join(v.Misses, "; ")
}

// watchSignals turns the first SIGINT/SIGTERM into a graceful stop (the
// engine gives in-flight requests the grace period, then writes what it
// measured) and a second into an immediate exit.
func (c cli) watchSignals(ctx context.Context, stop context.CancelFunc) {
	if c.signals == nil {
		return
	}
	select {
	case s := <-c.signals:
		fmt.Fprintf(c.stderr, "\nkneepoint: %v: stopping (again to exit at once)\n", s)
		stop()
	case <-ctx.Done():
		return
	}
	select {
	case <-c.signals:
		fmt.Fprintln(c.stderr, "kneepoint: exiting now")
		c.exit(exitInterrupted)
	case <-time.After(time.Hour):
	}
}

// headless prints progress on stderr and the table on stdout.
func (c cli) headless(events <-chan engine.Event) engine.Results {
	var res engine.Results
	var lastProgress time.Duration
	for e := range events {
		switch v := e.(type) {
		case engine.LevelStarted:
			fmt.Fprintf(c.stderr, "[%5.1fs] c=%d (%s): warming up\n", v.At.Seconds(), v.Concurrency, v.Source)
		case engine.Snapshot:
			if v.At-lastProgress >= 2*time.Second && v.Phase == engine.PhaseMeasuring {
				lastProgress = v.At
				fmt.Fprintf(c.stderr, "[%5.1fs]   in-flight %d/%d, %.0f tok/s, p95 %.0f ms, errors %d\n",
					v.At.Seconds(), v.InFlight, v.Target, v.OutputTokPerS, v.Latency.P95, v.Failed)
			}
		case engine.LevelDone:
			l := v.Level
			fmt.Fprintf(c.stderr, "          c=%d done: %.0f tok/s, %.2f req/s, p95 %.0f ms, TTFT p95 %.0f ms, %d ok, %d failed\n",
				l.Concurrency, l.OutputTokPerS, l.RequestsPerS, l.Latency.P95, l.TTFT.P95, l.Succeeded, l.Failed)
		case engine.KneeFound:
			fmt.Fprintf(c.stderr, "          knee at c=%d: %s\n", v.Knee.Concurrency, v.Knee.Reason)
		case engine.Finished:
			res = v.Results
		}
	}
	if err := report.Table(res)(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "kneepoint: %v\n", err)
	}
	return res
}

// writeOutputs writes every requested file, each atomically; the format
// follows the extension.
func (c cli) writeOutputs(files []string, res engine.Results) error {
	if len(files) > 0 && res.Schema == "" {
		return errors.New("the run produced no results to write")
	}
	var errs []error
	for _, f := range files {
		w, err := report.ForPath(f, res)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := engine.WriteFileAtomic(f, w); err != nil {
			errs = append(errs, fmt.Errorf("writing %s: %w", f, err))
			continue
		}
		fmt.Fprintf(c.stderr, "kneepoint: wrote %s\n", f)
	}
	return errors.Join(errs...)
}

// subFlags parses a subcommand's flags, allowing them before or after its
// file arguments ("report r.json --format csv" reads naturally).
func (c cli) subFlags(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	fs.SetOutput(c.stderr)
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		if fs.NArg() == 0 {
			return files, 0, true
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// readAll reads results files; a bad one is a one-line usage error.
func readAll(paths []string) ([]engine.Results, error) {
	var runs []engine.Results
	for _, p := range paths {
		res, err := engine.ReadResults(p)
		if err != nil {
			return nil, &config.Error{Msg: err.Error()}
		}
		runs = append(runs, res)
	}
	return runs, nil
}

// emit writes a reporter to a file (atomically) or to stdout.
func (c cli) emit(out string, w report.Reporter) int {
	if out == "" || out == "-" {
		if err := w(c.stdout); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	if err := engine.WriteFileAtomic(out, w); err != nil {
		return c.fail(fmt.Errorf("writing %s: %w", out, err))
	}
	fmt.Fprintf(c.stderr, "kneepoint: wrote %s\n", out)
	return exitOK
}

// report renders a results file as Markdown, CSV or JSON.
func (c cli) report(args []string) int {
	fs := flag.NewFlagSet("kneepoint report", flag.ContinueOnError)
	format := fs.String("format", "md", "md, csv or json")
	out := fs.String("o", "", "write to this file (default stdout; the extension picks the format)")
	files, code, ok := c.subFlags(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		return c.fail(&config.Error{Msg: "usage: kneepoint report results.json [--format md|csv|json] [-o FILE]"})
	}
	runs, err := readAll(files)
	if err != nil {
		return c.fail(err)
	}
	res := runs[0]
	if *out != "" {
		w, err := report.ForPath(*out, res)
		if err != nil {
			return c.fail(&config.Error{Key: "-o", Msg: err.Error()})
		}
		return c.emit(*out, w)
	}
	var w report.Reporter
	switch *format {
	case "md", "markdown":
		w = report.Markdown(res)
	case "csv":
		w = report.CSV(res)
	case "json":
		w = report.JSON(res)
	default:
		return c.fail(&config.Error{Key: "--format", Msg: fmt.Sprintf("%q is not md, csv or json", *format)})
	}
	return c.emit("", w)
}

// plot draws throughput and latency against concurrency with the knee.
func (c cli) plot(args []string) int {
	fs := flag.NewFlagSet("kneepoint plot", flag.ContinueOnError)
	out := fs.String("o", "sweep.svg", "output file: .svg or .png")
	files, code, ok := c.subFlags(fs, args)
	if !ok {
		return code
	}
	if len(files) != 1 {
		return c.fail(&config.Error{Msg: "usage: kneepoint plot results.json -o sweep.svg"})
	}
	ext := strings.ToLower(filepath.Ext(*out))
	if ext != ".svg" && ext != ".png" {
		return c.fail(&config.Error{Key: "-o", Msg: fmt.Sprintf("%q: a plot is .svg or .png", *out)})
	}
	runs, err := readAll(files)
	if err != nil {
		return c.fail(err)
	}
	return c.emit(*out, report.Plot(runs[0], ext[1:]))
}

// compare puts runs side by side with the ratio per level.
func (c cli) compare(args []string) int {
	fs := flag.NewFlagSet("kneepoint compare", flag.ContinueOnError)
	out := fs.String("o", "", "write to this file: .md, .csv, .svg or .png (default: Markdown on stdout)")
	files, code, ok := c.subFlags(fs, args)
	if !ok {
		return code
	}
	if len(files) < 2 {
		return c.fail(&config.Error{Msg: "usage: kneepoint compare a.json b.json [...] [-o FILE]"})
	}
	runs, err := readAll(files)
	if err != nil {
		return c.fail(err)
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
	}
	if *out == "" {
		return c.emit("", report.Compare(runs, names))
	}
	w, err := report.CompareForPath(*out, runs, names)
	if err != nil {
		return c.fail(&config.Error{Key: "-o", Msg: err.Error()})
	}
	return c.emit(*out, w)
}

// replay shows a recorded run in the dashboard without sending a request,
// for demos without a network.
func (c cli) replay(args []string) int {
	fs := flag.NewFlagSet("kneepoint replay", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	theme := fs.String("theme", "dark", "dashboard theme: "+strings.Join(themes.Names(), ", "))
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		return c.fail(&config.Error{Msg: "usage: kneepoint replay results.json"})
	}
	if _, err := themes.Lookup(*theme); err != nil {
		return c.fail(&config.Error{Key: "--theme", Msg: err.Error()})
	}
	res, err := engine.ReadResults(fs.Arg(0))
	if err != nil {
		return c.fail(&config.Error{Msg: err.Error()})
	}
	if !c.tty {
		// no terminal: print the recorded table instead
		if err := report.Table(res)(c.stdout); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	opts := ui.Options{Theme: *theme, NoColor: c.getenv("NO_COLOR") != "", Target: res.Target,
		Workload: res.Workload, OutPath: fs.Arg(0)}
	if err := ui.RunReplay(context.Background(), res, opts); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// models lists the models an OpenAI-compatible server offers.
func (c cli) models(args []string) int {
	cfg, err := config.FromArgs("kneepoint models", append([]string{"--provider", "openai", "--headless"}, args...), c.getenv, c.stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		return c.fail(err)
	}
	cfg.Target.SkipCheck = true
	b, err := providers.New(cfg, c.getenv)
	if err != nil {
		return c.fail(err)
	}
	defer b.Close()
	lister, ok := b.Provider.(interface {
		Models(context.Context) ([]string, error)
	})
	if !ok {
		return c.fail(errors.New("this provider cannot list models"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	ms, err := lister.Models(ctx)
	if err != nil {
		fmt.Fprintf(c.stderr, "kneepoint: %v\n", err)
		return exitError
	}
	for _, m := range ms {
		fmt.Fprintln(c.stdout, m)
	}
	return exitOK
}

// serveSim runs the simulator as an OpenAI-compatible HTTP server until
// SIGINT/SIGTERM, so curl, hey, the official SDKs and other benchmark
// tools can be pointed at it.
func (c cli) serveSim(args []string) int {
	fs := flag.NewFlagSet("kneepoint serve-sim", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	addr := fs.String("addr", "127.0.0.1:8000", "listen address")
	profile := fs.String("profile", "h200-llama3-8b", "simulator profile: "+strings.Join(sim.Profiles(), ", "))
	seed := fs.Int64("seed", 1, "random seed")
	faults := fs.String("faults", "", "fault injection, e.g. \"429=0.05,503=0.02,reset-during=0.01\" (kinds: "+strings.Join(simserver.FaultKinds(), ", ")+")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	prof, err := sim.LookupProfile(*profile)
	if err != nil {
		return c.fail(&config.Error{Key: "--profile", Msg: fmt.Sprintf("%v (profiles: %s)", err, strings.Join(sim.Profiles(), ", "))})
	}
	fl, err := simserver.ParseFaults(*faults)
	if err != nil {
		return c.fail(&config.Error{Key: "--faults", Msg: err.Error()})
	}
	fl.Seed = *seed
	s, err := sim.New(prof, sim.WithSeed(*seed))
	if err != nil {
		return c.fail(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.signals:
			cancel()
		case <-ctx.Done():
		}
	}()
	err = simserver.ListenAndServe(ctx, *addr, s, func(a net.Addr) {
		fmt.Fprintf(c.stderr, "kneepoint: simulator %s serving an OpenAI-compatible API on http://%s/v1 (metrics: /metrics)\n", *profile, a)
	}, simserver.WithFaults(fl))
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(c.stderr, "kneepoint: serve-sim: %v\n", err)
		return exitError
	}
	return exitOK
}
