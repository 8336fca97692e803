package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// records reads a stream of JSON objects (SLS and Rumen files hold several
// top-level objects one after another, as Jackson's readValues reads them)
// and calls fn with each, numbered from 1.
func records(r io.Reader, file string, fn func(rec int, o obj) error) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	for rec := 1; ; rec++ {
		var raw map[string]json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			if rec == 1 {
				return &Error{File: file, Reason: "no records"}
			}
			return nil
		}
		if err != nil {
			return &Error{File: file, Record: rec, Reason: "malformed JSON object", Err: err}
		}
		if raw == nil {
			return &Error{File: file, Record: rec, Reason: "record is null"}
		}
		if err := fn(rec, obj{file: file, rec: rec, m: raw}); err != nil {
			return err
		}
	}
}

// obj is one JSON object of a record with its place in the file, so that
// every error names the file, the record and the field.
type obj struct {
	file   string
	rec    int
	id     string
	prefix string // field path of this object within the record
	m      map[string]json.RawMessage
}

func (o obj) has(k string) bool {
	v, ok := o.m[k]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

func (o obj) err(k string, v any, reason string, cause error) error {
	return &Error{File: o.file, Record: o.rec, ID: o.id, Field: o.prefix + k, Value: v, Reason: reason, Err: cause}
}

// scalar returns the field as text: a JSON string's content or a number's
// literal (Java's toString of what Jackson read).
func (o obj) scalar(k string) (string, error) {
	raw := bytes.TrimSpace(o.m[k])
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", o.err(k, string(raw), "malformed string", err)
		}
		return s, nil
	}
	if len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9')) {
		return string(raw), nil
	}
	if string(raw) == "true" || string(raw) == "false" {
		return string(raw), nil
	}
	return "", o.err(k, string(raw), "expected a string or a number", nil)
}

// str reads a string field (numbers are taken as their text, as SLS's
// toString does); def when absent.
func (o obj) str(k, def string) (string, error) {
	if !o.has(k) {
		return def, nil
	}
	return o.scalar(k)
}

// int64 reads an integer field (a JSON number or a numeric string); def
// when absent.
func (o obj) int64(k string, def int64) (int64, error) {
	if !o.has(k) {
		return def, nil
	}
	s, err := o.scalar(k)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if perr != nil {
		return 0, o.err(k, s, "not an integer", nil)
	}
	return v, nil
}

// int32 reads an int field within Java's int range.
func (o obj) int32(k string, def int32) (int32, error) {
	v, err := o.int64(k, int64(def))
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, o.err(k, v, "out of the int range", nil)
	}
	return int32(v), nil
}

// float reads a number field; def when absent.
func (o obj) float(k string, def float64) (float64, error) {
	if !o.has(k) {
		return def, nil
	}
	s, err := o.scalar(k)
	if err != nil {
		return 0, err
	}
	v, perr := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, o.err(k, s, "not a finite number", nil)
	}
	return v, nil
}

// objects reads an array of objects; each becomes an obj whose prefix is
// "k[i].".
func (o obj) objects(k string) ([]obj, error) {
	if !o.has(k) {
		return nil, nil
	}
	var arr []map[string]json.RawMessage
	if err := json.Unmarshal(o.m[k], &arr); err != nil {
		return nil, o.err(k, nil, "expected an array of objects", err)
	}
	out := make([]obj, len(arr))
	for i, m := range arr {
		if m == nil {
			return nil, o.err(fmt.Sprintf("%s[%d]", k, i), nil, "element is null", nil)
		}
		out[i] = obj{file: o.file, rec: o.rec, id: o.id, prefix: fmt.Sprintf("%s%s[%d].", o.prefix, k, i), m: m}
	}
	return out, nil
}

// object reads a nested object field.
func (o obj) object(k string) (obj, bool, error) {
	if !o.has(k) {
		return obj{}, false, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(o.m[k], &m); err != nil {
		return obj{}, false, o.err(k, nil, "expected an object", err)
	}
	return obj{file: o.file, rec: o.rec, id: o.id, prefix: o.prefix + k + ".", m: m}, true, nil
}

// keys returns the object's keys in sorted order (deterministic errors).
func (o obj) keys() []string {
	ks := make([]string, 0, len(o.m))
	for k := range o.m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// jsonStrings reads an array of numbers or strings as their text into dst.
func jsonStrings(o obj, k string, dst *[]string) error {
	var arr []json.RawMessage
	if err := json.Unmarshal(o.m[k], &arr); err != nil {
		return o.err(k, nil, "expected an array", err)
	}
	for i, raw := range arr {
		key := fmt.Sprintf("%s[%d]", k, i)
		s, err := obj{file: o.file, rec: o.rec, id: o.id, prefix: o.prefix, m: map[string]json.RawMessage{key: raw}}.scalar(key)
		if err != nil {
			return err
		}
		*dst = append(*dst, s)
	}
	return nil
}
