package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// exitNow ends the process on a second signal; tests replace it.
var exitNow = os.Exit

// signalContext returns a context that the first SIGINT or SIGTERM
// cancels, so the run stops and cleans up (MCP servers, transcript) and the
// command exits non-zero; a second signal exits at once with status 130,
// for when cleanup itself is stuck. stop releases the signals; call it
// when the run is over.
func signalContext(parent context.Context, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		first := true
		for {
			select {
			case <-done:
				return
			case sig := <-ch:
				if first {
					first = false
					fmt.Fprintf(stderr, "\nagentls: %v: cancelling the run (send it again to exit at once)\n", sig)
					cancel()
					continue
				}
				fmt.Fprintf(stderr, "agentls: %v again: exiting without cleanup\n", sig)
				exitNow(130)
				return
			}
		}
	})
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			wg.Wait()
			cancel()
		})
	}
}
