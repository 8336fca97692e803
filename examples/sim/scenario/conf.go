package scenario

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/berthsched/berth"
)

// Site is a Hadoop configuration file (yarn-site.xml, sls-runner.xml):
// <configuration><property><name/><value/></property>...</configuration>,
// as a name → value map with the file name for errors.
type Site struct {
	File   string
	Values map[string]string
}

// ParseSite reads a Hadoop configuration file.
func ParseSite(data []byte, file string) (*Site, error) {
	var doc struct {
		Props []struct {
			Name  string `xml:"name"`
			Value string `xml:"value"`
		} `xml:"property"`
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, &InputError{File: file, Reason: "malformed configuration XML", Err: err}
	}
	s := &Site{File: file, Values: map[string]string{}}
	for i, p := range doc.Props {
		name := strings.TrimSpace(p.Name)
		if name == "" {
			return nil, &InputError{File: file, Field: fmt.Sprintf("property[%d].name", i+1), Reason: "empty"}
		}
		s.Values[name] = strings.TrimSpace(p.Value)
	}
	return s, nil
}

func (s *Site) get(k string) (string, bool) {
	if s == nil {
		return "", false
	}
	v, ok := s.Values[k]
	return v, ok
}

// Int reads a positive integer key, def when absent.
func (s *Site) Int(k string, def int64) (int64, error) {
	v, ok := s.get(k)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, &InputError{File: s.File, Field: k, Value: v, Reason: "must be a positive integer"}
	}
	return n, nil
}

// Bool reads a boolean key, def when absent.
func (s *Site) Bool(k string, def bool) (bool, error) {
	v, ok := s.get(k)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &InputError{File: s.File, Field: k, Value: v, Reason: "must be true or false"}
}

// InputError is a bad input file or setting of a scenario, naming the file
// and the field; it unwraps to berth.ErrInvalidArgument and the cause.
type InputError struct {
	File, Field string
	Value       any
	Reason      string
	Err         error
}

func (e *InputError) Error() string {
	msg := e.File
	if e.Field != "" {
		msg += ": " + e.Field
	}
	msg += ": " + e.Reason
	if e.Value != nil {
		msg += fmt.Sprintf(" (value: %v)", e.Value)
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap exposes the kind and the cause.
func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{berth.ErrInvalidArgument, e.Err}
	}
	return []error{berth.ErrInvalidArgument}
}
