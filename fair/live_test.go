package fair

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// listSteps runs ops decoded from b on two liveLists sharing containers
// (as an application's and a node's do) and on slices: pushes of
// increasing ids, removals at random; both lists must stay in id order.
func listSteps(t *testing.T, b []byte) {
	var l [2]liveList
	var ref [2][]*container
	var next ContainerID
	var all []*container
	for i := 0; i+1 < len(b); i += 2 {
		op, arg := b[i]%3, int(b[i+1])
		switch op {
		case 0, 1: // allocate into the app list and node list arg%2
			next += 1 + ContainerID(arg%3)
			c := &container{}
			c.ID = next
			l[appList].push(c, appList)
			ref[appList] = append(ref[appList], c)
			if arg%2 == 0 {
				l[nodeList].push(c, nodeList)
				ref[nodeList] = append(ref[nodeList], c)
			}
			all = append(all, c)
		case 2: // release from every list holding it
			if len(all) == 0 {
				continue
			}
			j := arg % len(all)
			c := all[j]
			all = slices.Delete(all, j, j+1)
			for w := range l {
				if k := slices.Index(ref[w], c); k >= 0 {
					l[w].remove(c, w)
					ref[w] = slices.Delete(ref[w], k, k+1)
				}
			}
		}
		for w := range l {
			got := l[w].all(w)
			require.Equal(t, len(ref[w]), l[w].n, "list %d count", w)
			require.Equal(t, len(ref[w]), len(got), "list %d length", w)
			for k := range got {
				require.Same(t, ref[w][k], got[k], "list %d item %d", w, k)
				if k > 0 {
					require.Less(t, got[k-1].ID, got[k].ID, "list %d in id order", w)
				}
			}
			if len(got) > 0 {
				require.Same(t, got[len(got)-1], l[w].tail)
			} else {
				require.Nil(t, l[w].tail)
			}
		}
	}
}

func TestLiveListMatchesSlices(t *testing.T) {
	seeds := uint64(40)
	if testing.Short() || raceEnabled {
		seeds = 12
	}
	for seed := uint64(0); seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		b := make([]byte, 2*(20+r.IntN(300)))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		listSteps(t, b)
	}
}

func FuzzLiveList(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 2, 0, 1, 2, 2, 1, 2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 2048 {
			b = b[:2048]
		}
		listSteps(t, b)
	})
}
