package controlplane

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Every process group this process started and has not reaped yet, so that
// KillAll can end them whatever happened to the tests.
var (
	registryMu sync.Mutex
	registry   = map[int]*proc{}
)

// proc is one component running as a child process in its own process
// group, its output appended to a log file.
type proc struct {
	name    string
	cmd     *exec.Cmd
	log     *os.File
	pidFile string
	done    chan struct{}
	err     error // the exit error, once done is closed
}

func startProc(name, bin string, args []string, logPath, pidDir string) (*proc, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(logFile, "==== %s %s %s\n", time.Now().Format(time.RFC3339), name, strings.Join(args, " ")); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("writing %s's log %s: %w", name, logPath, err)
	}
	cmd := exec.Command(bin, append([]string{name}, args...)...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Its own process group, so that one signal reaches everything it
		// may spawn; and killed if the thread that started it dies.
		Setpgid:   true,
		Pdeathsig: syscall.SIGKILL,
	}
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logFile, done: make(chan struct{})}
	registryMu.Lock()
	registry[cmd.Process.Pid] = p
	registryMu.Unlock()
	if pidDir != "" {
		if err := os.MkdirAll(pidDir, 0o700); err == nil {
			p.pidFile = filepath.Join(pidDir, strconv.Itoa(cmd.Process.Pid)+".pid")
			_ = os.WriteFile(p.pidFile, []byte(bin+"\n"), 0o600)
		}
	}
	go func() {
		p.err = cmd.Wait()
		registryMu.Lock()
		delete(registry, cmd.Process.Pid)
		registryMu.Unlock()
		// Whatever it left in its group goes with it.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if p.pidFile != "" {
			_ = os.Remove(p.pidFile)
		}
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group, a second SIGTERM after 3s (on
// which the Kubernetes components exit at once: the API server can otherwise
// linger long after it stopped listening), then SIGKILL after grace.
func (p *proc) stop(grace time.Duration) error {
	if p == nil || p.exited() {
		return nil
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	again := time.NewTimer(3 * time.Second)
	defer again.Stop()
	kill := time.NewTimer(grace)
	defer kill.Stop()
	for {
		select {
		case <-p.done:
			return nil
		case <-again.C:
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
			continue
		case <-kill.C:
		}
		break
	}
	_, _ = fmt.Fprintf(p.log, "==== %s: no exit %s after SIGTERM: SIGKILL\n", time.Now().Format(time.RFC3339), grace)
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-p.done:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, pgid)
	}
}

// KillAll sends SIGKILL to the process group of every component this process
// started that is still running. Call it when the tests end (TestMain), so
// that nothing outlives them even after a panic.
func KillAll() {
	registryMu.Lock()
	procs := make([]*proc, 0, len(registry))
	for _, p := range registry {
		procs = append(procs, p)
	}
	registryMu.Unlock()
	for _, p := range procs {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	for _, p := range procs {
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
		}
	}
}

// KillStale kills the components that an earlier run left behind (a test
// binary killed with SIGKILL cannot clean up): every pid file in pidDir whose
// process still runs the binary named in the file is killed with its group.
// It returns what it killed.
func KillStale(pidDir string) ([]int, error) {
	entries, err := os.ReadDir(pidDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var killed []int
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".pid")
		if !ok {
			continue
		}
		path := filepath.Join(pidDir, e.Name())
		pid, err := strconv.Atoi(name)
		if err != nil || pid <= 1 {
			_ = os.Remove(path)
			continue
		}
		registryMu.Lock()
		_, ours := registry[pid]
		registryMu.Unlock()
		if ours {
			continue
		}
		bin, _ := os.ReadFile(path)
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err == nil && len(bin) > 0 {
			arg0, _, _ := bytes.Cut(cmdline, []byte{0})
			if string(arg0) == strings.TrimSpace(string(bin)) {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
				killed = append(killed, pid)
			}
		}
		_ = os.Remove(path)
	}
	return killed, nil
}

// clockTicks is the unit of the CPU times in /proc/<pid>/stat (USER_HZ),
// 100 on every Linux architecture Go supports.
const clockTicks = 100

// ProcessCPU reads the user and system CPU time process pid has used
// from /proc/<pid>/stat (in steps of 10 ms).
func ProcessCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count fields from the last ")". utime and stime are fields 14 and 15.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}
