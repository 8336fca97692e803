package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/berthsched/berth/examples/sim/metrics"
	"github.com/berthsched/berth/examples/sim/report"
	"github.com/berthsched/berth/examples/sim/scenario"
)

// ReportFile is the comparison's report, beside one directory per
// configuration.
const ReportFile = "compare.html"

// PartFile is the name of the file that carries one variant's run from a
// shard to the merge step, in the variant's output directory.
const PartFile = "run.json"

// partVersion changes when Part's meaning does: a merge refuses parts of
// another version.
const partVersion = 1

// Part is one variant's run as a shard saves it for the merge step:
// everything the comparison report needs, so that a merge gives the same
// report, byte for byte, as one machine running every variant.
type Part struct {
	Version int `json:"version"`
	// Comparison identifies the comparison (Sweep.Resolve's fingerprint);
	// Title and Description head its report; Total counts its variants.
	Comparison  string `json:"comparison"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Total       int    `json:"total"`
	// Index, Name and Settings are the variant's.
	Index    int              `json:"index"`
	Name     string           `json:"name"`
	Settings []report.Setting `json:"settings"`
	Run      *metrics.Run     `json:"run"`
}

// Header is what every part of one comparison shares.
type Header struct {
	Comparison, Title, Description string
	Total                          int
}

// EncodePart writes an outcome as a part (indented JSON).
func EncodePart(w io.Writer, h Header, o *Outcome) error {
	p := Part{Version: partVersion, Comparison: h.Comparison, Title: h.Title, Description: h.Description, Total: h.Total,
		Index: o.Index, Name: o.Name, Settings: o.Settings, Run: o.Run}
	b, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("part %s: %w", o.Name, err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// DecodePart reads a part (file names it in errors).
func DecodePart(data []byte, file string) (*Part, error) {
	var p Part
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, &scenario.InputError{File: file, Reason: "not a comparison part", Err: err}
	}
	switch {
	case p.Version != partVersion:
		return nil, &scenario.InputError{File: file, Field: "version", Value: p.Version, Reason: fmt.Sprintf("this simulator merges version %d", partVersion)}
	case p.Run == nil:
		return nil, &scenario.InputError{File: file, Field: "run", Reason: "missing"}
	case p.Total < 1 || p.Index < 0 || p.Index >= p.Total:
		return nil, &scenario.InputError{File: file, Field: "index", Value: p.Index, Reason: fmt.Sprintf("must be in [0, %d)", p.Total)}
	}
	return &p, nil
}

// ReadParts finds the parts under dirs (each dir, or its subdirectories,
// holding run.json files), and checks they are the whole of one
// comparison: the same fingerprint, every index once. It returns them as
// outcomes in index order, with the comparison's header.
func ReadParts(dirs []string) (Header, []Outcome, error) {
	var files []string
	for _, d := range dirs {
		for _, pattern := range []string{filepath.Join(d, PartFile), filepath.Join(d, "*", PartFile)} {
			m, err := filepath.Glob(pattern)
			if err != nil {
				return Header{}, nil, err
			}
			files = append(files, m...)
		}
	}
	if len(files) == 0 {
		return Header{}, nil, &scenario.InputError{File: fmt.Sprint(dirs), Reason: "no " + PartFile + " found (give the output directories of the shards)"}
	}
	var h Header
	var out []Outcome
	where := map[int]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return Header{}, nil, err
		}
		p, err := DecodePart(data, f)
		if err != nil {
			return Header{}, nil, err
		}
		ph := Header{Comparison: p.Comparison, Title: p.Title, Description: p.Description, Total: p.Total}
		if len(out) == 0 {
			h = ph
		} else if ph != h {
			return Header{}, nil, &scenario.InputError{File: f, Field: "comparison", Value: p.Comparison,
				Reason: fmt.Sprintf("belongs to another comparison than %s (%s)", files[0], h.Comparison)}
		}
		if prev, dup := where[p.Index]; dup {
			return Header{}, nil, &scenario.InputError{File: f, Field: "index", Value: p.Index, Reason: "the same variant is also in " + prev}
		}
		where[p.Index] = f
		out = append(out, Outcome{Variant: Variant{Index: p.Index, Name: p.Name, Settings: p.Settings}, Run: p.Run})
	}
	if len(out) != h.Total {
		var missing []int
		for i := range h.Total {
			if _, ok := where[i]; !ok {
				missing = append(missing, i)
			}
		}
		return Header{}, nil, &scenario.InputError{File: fmt.Sprint(dirs), Field: "variants", Value: missing,
			Reason: fmt.Sprintf("%d of %d variants found; the missing indices' shards did not finish or were not given", len(out), h.Total)}
	}
	slices.SortFunc(out, func(a, b Outcome) int { return a.Index - b.Index })
	return h, out, nil
}

// WriteReport writes the comparison's report (report.WriteComparison) of
// outcomes in index order.
func WriteReport(w io.Writer, h Header, outs []Outcome) error {
	vs := make([]report.Variant, len(outs))
	for i, o := range outs {
		vs[i] = report.Variant{Name: o.Name, Settings: o.Settings, Run: o.Run}
	}
	return report.WriteComparison(w, h.Title, h.Description, vs)
}
