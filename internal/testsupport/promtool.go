package testsupport

import (
	"os/exec"
	"strings"
	"testing"
)

// PromtoolCheck runs `promtool check metrics` (Debian package prometheus)
// on a scrape and fails the test on its complaints. It is false, and
// checks nothing, when promtool is not installed: the caller says whether
// that skips the test.
func PromtoolCheck(t testing.TB, scrape string) bool {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		return false
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(scrape)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s\non:\n%s", err, out, scrape)
	}
	return true
}
