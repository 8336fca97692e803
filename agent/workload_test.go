package agent_test

import "testing"

// splitmix64 is the random source of the benchmark workloads
// (WORKLOADS.md at the repository root).
type splitmix64 struct{ x uint64 }

func (s *splitmix64) next() uint64 {
	s.x += 0x9E3779B97F4A7C15
	z := s.x
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// uniform draws from [lo, hi], inclusive.
func (s *splitmix64) uniform(lo, hi int64) int64 {
	return lo + int64((s.next()>>1)%uint64(hi-lo+1))
}

// w2Request is one definition of workload W2, before conversion.
type w2Request struct {
	user                    string
	arrival, deadline       int64
	containers, concurrency int64
	duration                int64
}

// w2Requests draws the 10,000 definitions of W2 (seed 7), in order.
func w2Requests() []w2Request {
	r := &splitmix64{x: 7}
	out := make([]w2Request, 0, 10000)
	for i := 0; i < 10000; i++ {
		user := "u" + string(rune('0'+r.uniform(0, 9)))
		arrival := r.uniform(0, 604799) * 1000
		n := r.uniform(1, 100)
		conc := int64(1)
		if r.uniform(0, 1) == 1 {
			conc = n
		}
		duration := r.uniform(60, 7200) * 1000
		slack := r.uniform(110, 400)
		out = append(out, w2Request{
			user: user, arrival: arrival, deadline: arrival + duration*slack/100,
			containers: n, concurrency: conc, duration: duration,
		})
	}
	return out
}

func TestSplitmix64FirstValues(t *testing.T) {
	r := &splitmix64{x: 42}
	want := []uint64{0xBDD732262FEB6E95, 0x28EFE333B266F103, 0x47526757130F9F52}
	for i, w := range want {
		if got := r.next(); got != w {
			t.Fatalf("value %d: got %#x, want %#x", i, got, w)
		}
	}
}
