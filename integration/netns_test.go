package integration_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// netnsVariable marks a run of the test binary inside a network namespace
// of its own (inNetworkNamespace).
const netnsVariable = "SLICEWAY_IN_NETNS"

// inNetworkNamespace gives the test t a network namespace of its own,
// whose loopback device alone it may use: pods get private addresses
// there (controlplane.PodRunner), which nothing outside reaches and from
// which nothing leaves. Outside one, it runs this test binary again for t
// alone under unshare --net, with the loopback device up, reports that
// run's output and result, and says false: t, which ran there, stops
// here. Inside, it says true and t goes on. It needs root (CI runs as
// root); t is skipped without.
func inNetworkNamespace(t *testing.T) bool {
	t.Helper()
	if os.Getenv(netnsVariable) == "1" {
		return true
	}
	if os.Geteuid() != 0 {
		t.Skip("a network namespace of its own (unshare --net) needs root")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("unshare is not installed")
	}
	timeout := 10 * time.Minute
	if d, ok := t.Deadline(); ok {
		timeout = time.Until(d) - 10*time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, unshare, "--net", "--", "sh", "-c", `ip link set lo up && exec "$0" "$@"`,
		os.Args[0], "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1", "-test.timeout="+timeout.String())
	cmd.Env = append(os.Environ(), netnsVariable+"=1", "SLICEWAY_CONTROLPLANE="+launcher)
	out, err := cmd.CombinedOutput()
	t.Logf("in a network namespace of its own:\n%s", out)
	if err != nil {
		t.Fatalf("%s in its network namespace: %v", t.Name(), err)
	}
	return false
}
