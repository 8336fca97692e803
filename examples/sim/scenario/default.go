package scenario

import (
	"embed"
)

//go:embed default
var defaultFiles embed.FS

func embedded(name string) File {
	b, err := defaultFiles.ReadFile("default/" + name)
	if err != nil {
		panic("scenario: embedded file missing: " + name) // a build error, not input
	}
	return File{Name: "default/" + name, Data: b}
}

// Default returns the embedded default scenario under the named scheduler
// ("capacity" or "fair"): a simulated day on 300 nodes (15 racks of 20,
// <32 GB, 16 vcores> each) with three tenants — prod (40 %, nightly ETL),
// analytics (25 %, interactive daytime queries and, from 16:30, heavy
// dashboard refreshes), research (15 %, an afternoon burst of large jobs
// with long tasks from 15:00) — and a reservable queue, dedicated (20 %),
// whose deadline jobs reserve their maps and reduces through the
// reservation system; at noon three racks fail for two hours, the plan
// shrinks below its commitments and the replanner acts. Preemption is on:
// research's burst fills the idle cluster, and when the dashboards ask
// for far more than analytics' guarantee, preemption takes research's
// over-use back (the capacity scheduler's proportional policy; under the
// fair scheduler, min-share preemption of each tenant's share).
func Default(scheduler string) Inputs {
	conf := "capacity-scheduler.xml"
	if scheduler == "fair" {
		conf = "fair-scheduler.xml"
	}
	site, events := embedded("sls-runner.xml"), embedded("node-events.json")
	return Inputs{
		Scheduler:     scheduler,
		SchedulerConf: embedded(conf),
		Sites:         []File{site},
		TraceType:     "SYNTH",
		Traces:        []File{embedded("synth.json")},
		NodeEvents:    &events,
	}
}

// DefaultFiles lists the embedded default scenario's files by name, for a
// user who wants to start from them.
func DefaultFiles() map[string][]byte {
	out := map[string][]byte{}
	for _, n := range []string{"capacity-scheduler.xml", "fair-scheduler.xml", "sls-runner.xml", "node-events.json", "synth.json"} {
		out[n] = embedded(n).Data
	}
	return out
}
