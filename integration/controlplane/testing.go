package controlplane

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// StartForTest starts a control plane in a temporary directory of t and
// stops it when t ends, whether it passed, failed or panicked. When t
// failed, the end of each component's log is written to the test log.
func StartForTest(t testing.TB, binary, pidDir string, extraControllers ...string) *ControlPlane {
	t.Helper()
	dir := t.TempDir()
	c, err := Start(context.Background(), Options{Binary: binary, Dir: dir, PIDDir: pidDir, Logf: t.Logf, ExtraControllers: extraControllers})
	if err != nil {
		logTails(t, dir)
		t.Fatalf("starting the control plane: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			logTails(t, dir)
		}
		if err := c.Stop(); err != nil {
			t.Errorf("stopping the control plane: %v", err)
		}
	})
	return c
}

func logTails(t testing.TB, dir string) {
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager"} {
		data, err := os.ReadFile(dir + "/" + name + ".log")
		if err != nil {
			continue
		}
		lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
		if len(lines) > 40 {
			lines = lines[len(lines)-40:]
		}
		t.Logf("---- last lines of %s.log:\n%s", name, bytes.Join(lines, []byte("\n")))
	}
}
