package berth_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/berthsched/berth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateValue is one primitive of the reference model: what was written, so
// the test can read it back and compare.
type stateValue struct {
	kind int
	u    uint64
	i    int64
	b    bool
	f    float64
	s    string
	r    berth.Resource
	iv   berth.Interval
}

func randomStateValues(rng *rand.Rand, n int) []stateValue {
	vs := make([]stateValue, n)
	for k := range vs {
		v := stateValue{kind: rng.IntN(7)}
		switch v.kind {
		case 0:
			v.u = rng.Uint64() >> rng.UintN(64)
		case 1:
			v.i = int64(rng.Uint64()>>rng.UintN(64)) * int64(1-2*rng.IntN(2))
		case 2:
			v.b = rng.IntN(2) == 1
		case 3:
			v.f = rng.NormFloat64() * 1e6
		case 4:
			v.s = string(bytes.Repeat([]byte{byte('a' + rng.IntN(26))}, rng.IntN(70000>>rng.UintN(16))))
		case 5:
			if rng.IntN(2) == 0 {
				v.r = berth.New(rng.Int64N(1<<40), rng.Int64N(1<<20))
			} else {
				v.r = berth.NewWithExtras(rng.Int64N(1<<40), -rng.Int64N(9), berth.Quantity{Name: "gpu", Value: rng.Int64N(8) + 1}, berth.Quantity{Name: "fpga", Value: -3})
			}
		case 6:
			v.iv = berth.Interval{Start: rng.Int64N(1 << 50), End: math.MaxInt64 - rng.Int64N(5)}
		}
		vs[k] = v
	}
	return vs
}

func encodeStateValues(t testing.TB, kind string, version uint64, vs []stateValue) []byte {
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, kind, version)
	e.Len(len(vs))
	for _, v := range vs {
		e.Uvarint(uint64(v.kind))
		switch v.kind {
		case 0:
			e.Uvarint(v.u)
		case 1:
			e.Varint(v.i)
		case 2:
			e.Bool(v.b)
		case 3:
			e.Float64(v.f)
		case 4:
			e.String(v.s)
		case 5:
			e.Resource(v.r)
		case 6:
			e.Interval(v.iv)
		}
	}
	require.NoError(t, e.Finish())
	require.EqualValues(t, buf.Len(), e.Written())
	return buf.Bytes()
}

// decodeStateValues reads what encodeStateValues wrote and returns the
// values only if Finish accepted the snapshot, as every owner must.
func decodeStateValues(r *bytes.Reader, oneByte bool, kind string) ([]stateValue, error) {
	var src = any(r).(interface{ Read([]byte) (int, error) })
	if oneByte {
		src = iotest.OneByteReader(r)
	}
	d, err := berth.NewStateDecoder(src, kind, 3)
	if err != nil {
		return nil, err
	}
	n := d.Len(1 << 20)
	var vs []stateValue
	for k := 0; k < n && d.Err() == nil; k++ {
		v := stateValue{kind: int(d.Uvarint())}
		switch v.kind {
		case 0:
			v.u = d.Uvarint()
		case 1:
			v.i = d.Varint()
		case 2:
			v.b = d.Bool()
		case 3:
			v.f = d.Float64()
		case 4:
			v.s = d.String()
		case 5:
			v.r = d.Resource()
		case 6:
			v.iv = d.Interval()
		default:
			d.Fail(errors.New("unknown value kind"))
		}
		vs = append(vs, v)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return vs, nil
}

func TestStateRoundTripProperty(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		vs := randomStateValues(rng, rng.IntN(300))
		data := encodeStateValues(t, "test.Kind", 2, vs)
		for _, oneByte := range []bool{false, true} {
			got, err := decodeStateValues(bytes.NewReader(data), oneByte, "test.Kind")
			require.NoError(t, err, "seed %d", seed)
			require.Len(t, got, len(vs))
			for k := range vs {
				assert.Equal(t, vs[k].kind, got[k].kind)
				assert.Equal(t, vs[k].u, got[k].u)
				assert.Equal(t, vs[k].i, got[k].i)
				assert.Equal(t, vs[k].b, got[k].b)
				assert.Equal(t, math.Float64bits(vs[k].f), math.Float64bits(got[k].f))
				assert.Equal(t, vs[k].s, got[k].s)
				assert.True(t, vs[k].r.Equal(got[k].r), "%v != %v", vs[k].r, got[k].r)
				assert.Equal(t, vs[k].iv, got[k].iv)
			}
		}
	}
}

func TestStateDetectsTruncationAndCorruption(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	vs := randomStateValues(rng, 40)
	for k := range vs {
		vs[k].s = vs[k].s[:min(len(vs[k].s), 12)]
	}
	data := encodeStateValues(t, "test.Kind", 1, vs)
	for cut := range len(data) {
		_, err := decodeStateValues(bytes.NewReader(data[:cut]), false, "test.Kind")
		require.Error(t, err, "cut at %d", cut)
		assert.ErrorIs(t, err, berth.ErrCorruptState, "cut at %d", cut)
		var se *berth.StateError
		assert.ErrorAs(t, err, &se)
	}
	for k := range len(data) {
		for _, bit := range []byte{1, 0x10, 0x80} {
			bad := bytes.Clone(data)
			bad[k] ^= bit
			_, err := decodeStateValues(bytes.NewReader(bad), false, "test.Kind")
			assert.Error(t, err, "flip %#x at %d", bit, k)
		}
	}
}

func TestStateHeaderErrors(t *testing.T) {
	good := encodeStateValues(t, "test.Kind", 1, nil)
	tests := []struct {
		name    string
		data    []byte
		kind    string
		wantIs  error
		wantMsg string
	}{
		{"empty", nil, "test.Kind", berth.ErrCorruptState, "bad magic"},
		{"not a snapshot", []byte("hello, world, this is text"), "test.Kind", berth.ErrCorruptState, "bad magic"},
		{"other kind", good, "plan.System", berth.ErrInvalidArgument, `holds "test.Kind", want "plan.System"`},
		{"newer body", encodeStateValues(t, "test.Kind", 9, nil), "test.Kind", berth.ErrUnsupportedVersion, "test.Kind version 9 (this build reads up to 3)"},
		{"newer format", append([]byte("BERTHSS\x00\x02"), good[9:]...), "test.Kind", berth.ErrUnsupportedVersion, "format 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := berth.NewStateDecoder(bytes.NewReader(tc.data), tc.kind, 3)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.wantIs)
			assert.Contains(t, err.Error(), tc.wantMsg)
		})
	}
}

func TestStateDecoderNamesFieldAndRejectsBadCounts(t *testing.T) {
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "test.Kind", 1)
	e.Len(1 << 40)
	require.NoError(t, e.Finish())
	d, err := berth.NewStateDecoder(&buf, "test.Kind", 1)
	require.NoError(t, err)
	d.Field("nodes")
	assert.Equal(t, 0, d.Len(1000))
	err = d.Finish()
	require.Error(t, err)
	assert.ErrorIs(t, err, berth.ErrCorruptState)
	assert.Contains(t, err.Error(), "test.Kind state at byte")
	assert.Contains(t, err.Error(), "nodes: corrupt state: count 1099511627776 exceeds 1000")

	// An owner's semantic check is reported the same way.
	buf.Reset()
	e = berth.NewStateEncoder(&buf, "test.Kind", 1)
	e.Int(-5)
	require.NoError(t, e.Finish())
	d, err = berth.NewStateDecoder(&buf, "test.Kind", 1)
	require.NoError(t, err)
	d.Field("node count")
	if v := d.Int(); v < 0 {
		d.Fail(errors.New("negative"))
	}
	assert.ErrorIs(t, d.Finish(), berth.ErrCorruptState)
}

func TestStateSnapshotsFollowOneAnotherOnABufferedReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	a, b := randomStateValues(rng, 50), randomStateValues(rng, 70)
	stream := append(encodeStateValues(t, "test.Kind", 1, a), encodeStateValues(t, "test.Kind", 2, b)...)
	br := bufio.NewReaderSize(bytes.NewReader(stream), 64)
	for _, want := range [][]stateValue{a, b} {
		d, err := berth.NewStateDecoder(br, "test.Kind", 3)
		require.NoError(t, err)
		n := d.Len(1 << 20)
		require.Equal(t, len(want), n)
		// Skip the body generically by re-reading it with the model.
		for k := range n {
			require.Equal(t, uint64(want[k].kind), d.Uvarint())
			switch want[k].kind {
			case 0:
				assert.Equal(t, want[k].u, d.Uvarint())
			case 1:
				assert.Equal(t, want[k].i, d.Varint())
			case 2:
				assert.Equal(t, want[k].b, d.Bool())
			case 3:
				assert.Equal(t, math.Float64bits(want[k].f), math.Float64bits(d.Float64()))
			case 4:
				assert.Equal(t, want[k].s, d.String())
			case 5:
				assert.True(t, want[k].r.Equal(d.Resource()))
			case 6:
				assert.Equal(t, want[k].iv, d.Interval())
			}
		}
		require.NoError(t, d.Finish())
	}
	_, err := br.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "both snapshots consumed exactly")
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after < len(p) {
		return 0, errors.New("disk full")
	}
	w.after -= len(p)
	return len(p), nil
}

func TestStateEncoderReportsWriteErrors(t *testing.T) {
	for _, after := range []int{0, 100, 40 << 10} {
		e := berth.NewStateEncoder(&failWriter{after: after}, "test.Kind", 1)
		for range 10000 {
			e.String("a reasonably long string to fill the buffer")
		}
		err := e.Finish()
		require.Error(t, err, "after %d", after)
		assert.Contains(t, err.Error(), "disk full")
	}
}

func FuzzStateDecoder(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	f.Add(encodeStateValues(f, "test.Kind", 1, randomStateValues(rng, 10)))
	f.Add(encodeStateValues(f, "test.Kind", 1, nil))
	f.Add([]byte("BERTHSS\x00\x01\x09test.Kind\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		vs, err := decodeStateValues(bytes.NewReader(data), false, "test.Kind")
		if err != nil {
			assert.Nil(t, vs)
			return
		}
		// Whatever decodes cleanly re-encodes to the same bytes.
		again := encodeStateValues(t, "test.Kind", 1, vs)
		d, derr := berth.NewStateDecoder(bytes.NewReader(data), "test.Kind", 3)
		require.NoError(t, derr)
		if d.Version() == 1 {
			assert.Equal(t, data, again)
		}
	})
}

func BenchmarkStateEncodeDecode(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	vs := randomStateValues(rng, 2000)
	for k := range vs {
		if vs[k].kind == 4 {
			vs[k].s = vs[k].s[:min(len(vs[k].s), 16)]
		}
	}
	data := encodeStateValues(b, "test.Kind", 1, vs)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		encodeStateValues(b, "test.Kind", 1, vs)
		if _, err := decodeStateValues(bytes.NewReader(data), false, "test.Kind"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestStateDeferredErrorOnlyForSoundSnapshots(t *testing.T) {
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "test.Kind", 1)
	e.String("host-policy")
	e.Float32(0.1)
	require.NoError(t, e.Finish())
	missing := berth.InvalidField("policy", "host-policy", "not supplied")

	read := func(data []byte) error {
		d, err := berth.NewStateDecoder(bytes.NewReader(data), "test.Kind", 1)
		if err != nil {
			return err
		}
		d.Defer(missing)
		d.Defer(errors.New("a second one is dropped"))
		assert.Equal(t, missing, d.Deferred())
		_ = d.String() // the damaged copy differs here; only the checksum tells
		assert.Equal(t, float32(0.1), d.Float32())
		return d.Finish()
	}
	assert.Equal(t, missing, read(buf.Bytes()), "a sound snapshot reports the deferred error")
	bad := bytes.Clone(buf.Bytes())
	bad[25] ^= 4 // inside the string: only the checksum can tell
	err := read(bad)
	assert.ErrorIs(t, err, berth.ErrCorruptState, "damage wins over the deferred error")
	assert.NotErrorIs(t, err, berth.ErrInvalidArgument)
}

func TestStateFloat32RefusesWiderValues(t *testing.T) {
	var buf bytes.Buffer
	e := berth.NewStateEncoder(&buf, "test.Kind", 1)
	e.Float64(0.1) // not a float32
	require.NoError(t, e.Finish())
	d, err := berth.NewStateDecoder(&buf, "test.Kind", 1)
	require.NoError(t, err)
	assert.Equal(t, float32(0), d.Float32())
	err = d.Finish()
	assert.ErrorIs(t, err, berth.ErrCorruptState)
	assert.Contains(t, err.Error(), "not a single-precision value")
}
