package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// Ctrl-C is how a demo ends, so a stop by a signal is a success: make then
// prints no "Error 1". The terminal sends SIGINT to the whole foreground
// process group, the command run against the cluster included; the
// control plane's processes run in groups of their own and are stopped by
// devcluster.

// runUntilSignal runs cmd until it exits or ctx is done (SIGINT, SIGTERM).
// When ctx is done first, cmd gets SIGTERM, and SIGKILL if it has not
// exited after grace; either way it has stopped, and nil is returned. A
// command that ends on its own returns its error (nil for status 0),
// unless SIGINT or SIGTERM ended it: that is the user's Ctrl-C too.
func runUntilSignal(ctx context.Context, cmd *exec.Cmd, grace time.Duration) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if endedBySignal(err) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	// Asked to stop, the command's status says how it stopped, not whether
	// the demo went well: it is left.
	_ = cmd.Process.Signal(syscall.SIGTERM)
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case err := <-done:
		_ = err
		return nil
	case <-timer.C:
	}
	fmt.Fprintf(os.Stderr, "devcluster: %s had not stopped %s after SIGTERM: killed\n", cmd.Path, grace)
	_ = cmd.Process.Kill()
	err := <-done
	_ = err
	return nil
}

// endedBySignal tells whether a command's error is its death by SIGINT or
// SIGTERM.
func endedBySignal(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	ws, ok := exit.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && (ws.Signal() == syscall.SIGINT || ws.Signal() == syscall.SIGTERM)
}

// interrupted returns nil for the error of a step a signal cut short (the
// control plane's start, creating the Nodes, applying the manifests),
// saying so, and the error itself otherwise.
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "devcluster: interrupted")
	return nil
}
