package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// childEnv makes the test binary act as the command devcluster runs.
const childEnv = "DEVCLUSTER_TEST_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		actAsChild(role)
		return
	}
	os.Exit(m.Run())
}

// actAsChild behaves as one kind of command: it says "ready" once its
// signal handling is set, then ends as its role says.
func actAsChild(role string) {
	switch role {
	case "stops-on-term":
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		fmt.Println("ready")
		<-term
		fmt.Println("terminated")
		os.Exit(0)
	case "ignores-term":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		select {}
	case "fails":
		os.Exit(3)
	case "succeeds":
		os.Exit(0)
	case "dies-of-sigint":
		fmt.Println("ready")
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
		select {}
	}
	os.Exit(99)
}

// child returns the command for a role and a reader of its stdout: a pipe
// of the test's own, which Wait does not close under the reader.
func child(t *testing.T, role string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+role)
	cmd.Stdout = w
	return cmd, bufio.NewReader(r)
}

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	return strings.TrimSpace(line)
}

// Ctrl-C (ctx done) stops the command with SIGTERM and is a clean stop.
func TestRunUntilSignalStopsTheCommandAndSucceeds(t *testing.T) {
	cmd, out := child(t, "stops-on-term")
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- runUntilSignal(ctx, cmd, time.Minute) }()
	require.Equal(t, "ready", readLine(t, out))
	cancel()
	assert.Equal(t, "terminated", readLine(t, out), "the command got SIGTERM")
	require.NoError(t, <-result)
	assert.Equal(t, 0, cmd.ProcessState.ExitCode())
}

// A command that does not stop on SIGTERM is killed after the grace time,
// and the stop is still a clean one.
func TestRunUntilSignalKillsACommandThatDoesNotStop(t *testing.T) {
	cmd, out := child(t, "ignores-term")
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- runUntilSignal(ctx, cmd, 10*time.Millisecond) }()
	require.Equal(t, "ready", readLine(t, out))
	cancel()
	require.NoError(t, <-result)
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	require.True(t, ok)
	assert.Equal(t, syscall.SIGKILL, ws.Signal())
}

// A command that ends on its own gives its status; one the terminal's
// SIGINT ended is a clean stop.
func TestRunUntilSignalGivesTheCommandsOwnEnd(t *testing.T) {
	cmd, _ := child(t, "fails")
	err := runUntilSignal(context.Background(), cmd, time.Minute)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode())

	cmd, _ = child(t, "succeeds")
	require.NoError(t, runUntilSignal(context.Background(), cmd, time.Minute))

	cmd, out := child(t, "dies-of-sigint")
	result := make(chan error, 1)
	go func() { result <- runUntilSignal(context.Background(), cmd, time.Minute) }()
	require.Equal(t, "ready", readLine(t, out))
	require.NoError(t, <-result)
}

func TestInterruptedStepsAreACleanStop(t *testing.T) {
	failed := errors.New("creating node-a: context canceled")
	assert.Equal(t, failed, interrupted(context.Background(), failed), "no signal: the error stands")
	assert.NoError(t, interrupted(context.Background(), nil))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.NoError(t, interrupted(ctx, failed), "after a signal: a clean stop")
}
