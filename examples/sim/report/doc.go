// Package report renders a simulator run as one self-contained HTML page.
//
// It reads what package metrics recorded and knows nothing about the
// schedulers. [Write] draws the page of one run (inline SVG charts made with
// gonum/plot, no scripts, no external resources) and [WriteComparison] the
// page of several runs side by side (package compare uses it). The parts
// are exported for a Go test or a host that wants them without the page:
// [Summarize] (figures per run and per queue), [Story] (the run told in a
// few generated sentences), [Figures] (the charts) and [Differences] and
// [CompareQueues] (what changed between runs). It is not a live dashboard:
// a page is written once, after the run.
package report
