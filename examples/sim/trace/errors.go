package trace

import (
	"fmt"
	"strings"

	"github.com/berthsched/berth"
)

// Error is a bad input of one of the readers: the file, the record and the
// field, as the user wrote them. It unwraps to berth.ErrInvalidArgument
// and to the cause (a JSON syntax error, for instance) when there is one.
type Error struct {
	// File is the file name the reader was given ("" when reading a bare
	// stream).
	File string
	// Record is the 1-based index of the JSON object in the file (the job,
	// or the rack of a node file); 0 when the error concerns the file as a
	// whole.
	Record int
	// ID is the record's id when known (job.id, jobID, a class name...).
	ID string
	// Field is the field path as spelled in the file, e.g.
	// "job.tasks[2].container.end.ms"; "" for a malformed record.
	Field string
	// Value is the offending value (nil when missing).
	Value any
	// Reason says what is wrong, briefly.
	Reason string
	// Err is an underlying cause, if any.
	Err error
}

// Error formats the error as "file: record N (id): field: reason (value: v)".
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Record > 0 {
		fmt.Fprintf(&b, "record %d", e.Record)
		if e.ID != "" {
			fmt.Fprintf(&b, " (%s)", e.ID)
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Value != nil {
		fmt.Fprintf(&b, " (value: %v)", e.Value)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap exposes berth.ErrInvalidArgument and the cause.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{berth.ErrInvalidArgument, e.Err}
	}
	return []error{berth.ErrInvalidArgument}
}
