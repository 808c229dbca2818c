package manifests

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readSet reads the set again and returns whether it changed, its problems
// and its objects.
func readSet(t *testing.T, s *Set) (bool, []string, []string) {
	t.Helper()
	changed, problems := s.Read()
	return changed, problemLines(problems), objRefs(t, s.Objects())
}

func TestManifestSetFollowsEdits(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "sub", "b.yaml")
	writeFile(t, a, svcDoc("a1")+"---\n"+svcDoc("a2"))
	writeFile(t, b, svcDoc("b"))
	s := NewSet([]string{dir}, IsUsedKind)

	changed, problems, objs := readSet(t, s)
	assert.True(t, changed)
	assert.Empty(t, problems)
	assert.Equal(t, []string{"Service /a1 @1", "Service /a2 @2", "Service /b @1"}, objs)
	assert.Equal(t, []string{filepath.Dir(dir), dir, filepath.Join(dir, "sub")}, s.Dirs())

	t.Run("nothing changed", func(t *testing.T) {
		changed, problems, _ := readSet(t, s)
		assert.False(t, changed)
		assert.Empty(t, problems)
	})
	t.Run("touched, or written with the same content", func(t *testing.T) {
		later := time.Now().Add(time.Hour)
		require.NoError(t, os.Chtimes(a, later, later))
		writeFile(t, b, svcDoc("b"))
		changed, problems, _ := readSet(t, s)
		assert.False(t, changed)
		assert.Empty(t, problems)
	})
	t.Run("edited", func(t *testing.T) {
		writeFile(t, a, svcDoc("a1"))
		changed, problems, objs := readSet(t, s)
		assert.True(t, changed)
		assert.Empty(t, problems)
		assert.Equal(t, []string{"Service /a1 @1", "Service /b @1"}, objs)
	})
	t.Run("broken: the last good objects stay, the error names the file and document", func(t *testing.T) {
		writeFile(t, a, svcDoc("a1")+"---\n"+badYAMLDoc)
		changed, problems, objs := readSet(t, s)
		assert.False(t, changed)
		require.Len(t, problems, 2)
		assert.Contains(t, problems[0], "error: "+a+": document 2: not valid YAML")
		assert.Equal(t, "warning: "+a+": the objects of its last version that could be used stay until it is fixed", problems[1])
		assert.Equal(t, []string{"Service /a1 @1", "Service /b @1"}, objs)
		assert.Empty(t, s.Fixed())

		changed, problems, _ = readSet(t, s)
		assert.False(t, changed)
		assert.Empty(t, problems, "said once, not at every read")
		assert.Empty(t, s.Fixed(), "still broken")
	})
	t.Run("fixed: said once", func(t *testing.T) {
		writeFile(t, a, svcDoc("a1")+"---\n"+svcDoc("a3"))
		changed, problems, objs := readSet(t, s)
		assert.True(t, changed)
		assert.Empty(t, problems)
		assert.Equal(t, []string{"Service /a1 @1", "Service /a3 @2", "Service /b @1"}, objs)
		assert.Equal(t, []string{a}, s.Fixed())
		readSet(t, s)
		assert.Empty(t, s.Fixed())
	})
	t.Run("emptied: an error, the objects stay", func(t *testing.T) {
		writeFile(t, b, "")
		changed, problems, objs := readSet(t, s)
		assert.False(t, changed)
		assert.Equal(t, "error: "+b+": the file is empty", problems[0])
		assert.Contains(t, objs, "Service /b @1")
	})
	t.Run("deleted: its objects go", func(t *testing.T) {
		require.NoError(t, os.Remove(b))
		changed, problems, objs := readSet(t, s)
		assert.True(t, changed)
		assert.Empty(t, problems)
		assert.Equal(t, []string{"Service /a1 @1", "Service /a3 @2"}, objs)
	})
	t.Run("a new file, renamed into place as editors save", func(t *testing.T) {
		tmp := filepath.Join(dir, ".c.yaml.swp")
		writeFile(t, tmp, svcDoc("c"))
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, "c.yaml")))
		changed, problems, objs := readSet(t, s)
		assert.True(t, changed)
		assert.Empty(t, problems)
		assert.Equal(t, []string{"Service /a1 @1", "Service /a3 @2", "Service /c @1"}, objs)
	})
}

func TestManifestSetPaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.yaml")
	writeFile(t, file, svcDoc("one"))
	broken := filepath.Join(dir, "broken.yaml")
	writeFile(t, broken, svcDoc("ok")+"---\n"+badYAMLDoc)
	s := NewSet([]string{file, broken}, IsUsedKind)

	changed, problems, objs := readSet(t, s)
	assert.True(t, changed)
	require.Len(t, problems, 1)
	assert.Contains(t, problems[0], broken+": document 2")
	assert.Equal(t, []string{"Service /one @1", "Service /ok @1"}, objs, "never read without error: what parses is taken")
	assert.Equal(t, []string{dir}, s.Dirs())

	t.Run("a named file removed", func(t *testing.T) {
		require.NoError(t, os.Remove(file))
		changed, problems, objs := readSet(t, s)
		assert.True(t, changed)
		require.Len(t, problems, 1)
		assert.Contains(t, problems[0], "error: "+file+": ")
		assert.Equal(t, []string{"Service /ok @1"}, objs)

		changed, problems, _ = readSet(t, s)
		assert.False(t, changed)
		assert.Empty(t, problems, "said once")
	})
	t.Run("and back", func(t *testing.T) {
		writeFile(t, file, svcDoc("again"))
		changed, problems, objs := readSet(t, s)
		assert.True(t, changed)
		assert.Empty(t, problems)
		assert.Equal(t, []string{"Service /again @1", "Service /ok @1"}, objs)
		assert.Equal(t, []string{file}, s.Fixed(), "the path exists again")
	})
	t.Run("a file that never read whole keeps giving what parses", func(t *testing.T) {
		writeFile(t, broken, svcDoc("ok2")+"---\n"+badYAMLDoc)
		changed, problems, objs := readSet(t, s)
		assert.True(t, changed)
		require.Len(t, problems, 1)
		assert.Equal(t, []string{"Service /again @1", "Service /ok2 @1"}, objs)
	})
}
