// Command endpoints serves cheap, scripted OpenAI-compatible endpoints on
// loopback for measuring kneepoint itself (bench/compare.sh): a server this
// cheap cannot be the bottleneck, so whatever limits a run is the client.
//
//	endpoints -mode trivial                       small fixed JSON completion
//	endpoints -mode sse -tokens 256               pre-rendered stream, one write
//	endpoints -mode sse -tokens 60 -interval 200ms   paced stream (long-lived)
//	endpoints -mode delay -first-byte 100ms       first byte after a fixed delay
//
// It listens on 127.0.0.1 only, writes the address it got to -port-file
// once it accepts connections, answers GET /v1/models (kneepoint's
// pre-flight check) and GET /stats (requests and tokens served, and how
// late the first byte left in delay mode), and exits on SIGINT/SIGTERM.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	var cfg settings
	flag.StringVar(&cfg.mode, "mode", modeSSE, "trivial, sse or delay")
	port := flag.Int("port", 0, "port on 127.0.0.1 (0: any free port)")
	portFile := flag.String("port-file", "", "write host:port here once listening")
	flag.IntVar(&cfg.tokens, "tokens", 256, "tokens per stream")
	flag.DurationVar(&cfg.interval, "interval", 0, "gap between tokens (0: the whole stream in one write)")
	flag.DurationVar(&cfg.firstByte, "first-byte", 0, "hold the first byte this long (delay mode; default 100ms there)")
	flag.StringVar(&cfg.saveBody, "save-body", "", "save the first request body to this file")
	precise := flag.Bool("precise", true, "hold first bytes with a nanosleep thread instead of time.Sleep")
	flag.Parse()

	switch cfg.mode {
	case modeTrivial, modeSSE:
	case modeDelay:
		if cfg.firstByte <= 0 {
			cfg.firstByte = 100 * time.Millisecond
		}
	default:
		fmt.Fprintf(os.Stderr, "endpoints: -mode %q is not trivial, sse or delay\n", cfg.mode)
		os.Exit(2)
	}
	if cfg.mode != modeDelay && cfg.firstByte > 0 {
		fmt.Fprintln(os.Stderr, "endpoints: -first-byte needs -mode delay")
		os.Exit(2)
	}
	s := newServer(cfg)
	if !*precise {
		s.wait = sleepWaiter{}
	}
	if err := serve(s, *port, *portFile); err != nil {
		fmt.Fprintf(os.Stderr, "endpoints: %v\n", err)
		os.Exit(1)
	}
}

func serve(s *server, port int, portFile string) error {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	ln = s.listen(ln, hs)
	addr := ln.Addr().String()
	if portFile != "" {
		tmp := portFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(addr+"\n"), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, portFile); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "endpoints: %s on http://%s/v1 (tokens %d, interval %s, first byte %s)\n",
		s.cfg.mode, addr, s.cfg.tokens, s.cfg.interval, s.cfg.firstByte)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-sig:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	hs.Shutdown(ctx)
	return nil
}
