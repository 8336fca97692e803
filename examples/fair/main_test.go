package main

import (
	"strings"
	"testing"
)

// TestRun runs the tour and checks the placements it narrates.
func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"allocation file: every element understood",
		"etl (user svc) placed in root.prod",
		"report-alice (user alice) placed in root.analytics.alice",
		"notebook (user carol) placed in root.adhoc",
		"root.analytics.bob     fair",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
