package fair

import (
	"fmt"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/internal/order"
)

// BenchmarkRekey is the walk's re-key after an allocation, alone: the
// first of a leaf's 100 applications (the many-applications benchmark's
// leaf) gets a container of <1 GB, 1> and is re-keyed under the fair and
// the DRF policy. It reports ns per re-key (key and move).
func BenchmarkRekey(b *testing.B) {
	for _, p := range []Policy{PolicyFair, PolicyDRF} {
		b.Run("policy="+p.String(), func(b *testing.B) {
			b.ReportAllocs()
			env := PolicyEnv{Cluster: berth.New(5000*64*1024, 5000*64)}
			kp := builtinPolicy{p}
			var set ordSet[*Schedulable]
			set.init()
			const n = 100
			items := make([]Schedulable, n)
			ents := make([]order.Entry[sortKey, *Schedulable], n)
			npre := make([]uint64, n)
			var scratch SortKey
			var k sortKey
			for i := range items {
				items[i] = Schedulable{Name: fmt.Sprintf("app%06d", i), StartTime: int64(i), Weight: 1,
					Demand: berth.New(1<<30, 1<<20), Usage: berth.New(int64(i%7)*1024, int64(i%7))}
				npre[i] = namePrefix(items[i].Name)
				ents[i].Value = &items[i]
				policyKey(kp, env, &items[i], npre[i], &scratch, &k)
				set.put(&ents[i], &k, false)
			}
			for b.Loop() {
				var first *Schedulable
				set.o.Ascend(func(s *Schedulable) bool { first = s; return false })
				i := int(first.StartTime) // its index
				first.Usage = first.Usage.Add(berth.New(1024, 1))
				policyKey(kp, env, first, npre[i], &scratch, &k)
				set.put(&ents[i], &k, false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/rekey")
		})
	}
}
