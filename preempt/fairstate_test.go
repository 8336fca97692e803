package preempt

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/fair"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fairPair is a scheduler with its preemptor on one clock: the host's
// durable unit.
type fairPair struct {
	s     *fair.Scheduler
	p     *FairPreemptor
	clock *berth.ManualClock
}

const fairStateAlloc = `<allocations>
<queue name="a"><weight>1</weight></queue>
<queue name="b"><weight>2</weight><minResources>8192 mb, 8 vcores</minResources><minSharePreemptionTimeout>1</minSharePreemptionTimeout></queue>
<queue name="c"><schedulingPolicy>drf</schedulingPolicy></queue>
<queue name="keep"><allowPreemptionFrom>false</allowPreemptionFrom></queue>
<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>0.9</defaultFairSharePreemptionThreshold>
</allocations>`

func newFairPair(t testing.TB, rng *rand.Rand) *fairPair {
	t.Helper()
	af, err := fair.ParseAllocationFile([]byte(fairStateAlloc), fair.ParseOptions{})
	require.NoError(t, err)
	pcfg := DefaultFairConfig()
	pcfg.Enabled = true
	pcfg.UtilizationThreshold = 0.3
	pcfg.WaitTimeBeforeKill = berth.Duration(500 + rng.IntN(3000))
	pcfg.WaitBeforeNextStarvationCheck = berth.Duration(rng.IntN(3000))
	pcfg.KillUnneeded = rng.IntN(2) == 0
	cfg := fair.DefaultConfig()
	cfg.AssignMultiple = rng.IntN(2) == 0
	pcfg.ApplyTo(&cfg)
	clock := berth.NewManualClock(0)
	cfg.Allocation = af
	cfg.Clock = clock
	s, err := fair.New(cfg)
	require.NoError(t, err)
	p, err := NewFairPreemptor(FairPreemptorSetup{State: s, Actor: s, Config: pcfg})
	require.NoError(t, err)
	for i := range 3 + rng.IntN(4) {
		require.NoError(t, s.AddNode(fair.NodeSpec{ID: fmt.Sprintf("n%02d", i), Rack: fmt.Sprintf("/r%d", i%2), Capability: berth.New(8192, 8)}))
	}
	return &fairPair{s: s, p: p, clock: clock}
}

// pairOp draws one host action; run applies it to a pair and describes
// every answer.
func pairOp(rng *rand.Rand, step int) func(fp *fairPair) string {
	queues := []string{"a", "b", "c", "keep"}
	app := fmt.Sprintf("app%d", rng.IntN(step/4+1))
	switch rng.IntN(12) {
	case 9:
		id := fmt.Sprintf("n%02d", rng.IntN(9))
		add := rng.IntN(2) == 0
		return func(fp *fairPair) string {
			if add {
				return fmt.Sprint(fp.s.AddNode(fair.NodeSpec{ID: id, Rack: "/r2", Capability: berth.New(8192, 8)}))
			}
			ended, err := fp.s.RemoveNode(id)
			return fmt.Sprint(ended, err)
		}
	case 10:
		q := []string{"a", "b", "c", "keep"}[rng.IntN(4)]
		return func(fp *fairPair) string {
			to, err := fp.s.MoveApp(app, q)
			return fmt.Sprint(to, err)
		}
	case 11:
		xml := fairStateAlloc
		if rng.IntN(2) == 0 {
			xml = `<allocations><queue name="a"><weight>3</weight></queue><queue name="c"/>
<defaultFairSharePreemptionTimeout>2</defaultFairSharePreemptionTimeout></allocations>`
		}
		return func(fp *fairPair) string {
			af, err := fair.ParseAllocationFile([]byte(xml), fair.ParseOptions{})
			if err != nil {
				return err.Error()
			}
			res, err := fp.s.Reload(af)
			return fmt.Sprint(res, err)
		}
	case 0:
		q := queues[rng.IntN(len(queues))]
		am := rng.IntN(2) == 0
		size := berth.New(1024*int64(1+rng.IntN(3)), int64(1+rng.IntN(2)))
		n := 1 + rng.IntN(12)
		id := fmt.Sprintf("app%d", step)
		return func(fp *fairPair) string {
			spec := fair.AppSpec{ID: id, Queue: q, User: "u" + q}
			if am {
				spec.AMResource = berth.New(1024, 1)
			}
			_, err := fp.s.SubmitApp(spec)
			_, err2 := fp.s.Allocate(id, []fair.Ask{{Priority: 1, ResourceName: fair.AnyResource, Capability: size, Count: n}}, nil)
			return fmt.Sprint(err, err2)
		}
	case 1, 2, 3:
		adv := berth.Duration(rng.IntN(700))
		return func(fp *fairPair) string {
			fp.clock.Advance(adv)
			out := ""
			for _, n := range fp.s.Snapshot().Nodes {
				als, err := fp.s.Heartbeat(n.ID, nil)
				out += fmt.Sprint(als, err)
			}
			return out
		}
	case 4, 5:
		adv := berth.Duration(rng.IntN(1500))
		return func(fp *fairPair) string {
			fp.clock.Advance(adv)
			fp.s.Update()
			r, err := fp.p.Round(fp.clock.Now())
			return fmt.Sprintf("%+v %v", *r, err)
		}
	case 6:
		return func(fp *fairPair) string {
			ended, err := fp.s.FinishApp(app)
			return fmt.Sprint(ended, err)
		}
	case 7:
		k := rng.IntN(50)
		return func(fp *fairPair) string {
			cs := fp.s.Snapshot().Containers
			if len(cs) == 0 {
				return ""
			}
			c := cs[k%len(cs)]
			als, err := fp.s.Heartbeat(c.Node, []fair.ContainerID{c.ID})
			return fmt.Sprint(als, err)
		}
	case 8:
		more := rng.IntN(6)
		return func(fp *fairPair) string {
			_, err := fp.s.Allocate(app, []fair.Ask{{Priority: 2, ResourceName: fair.AnyResource, Capability: berth.New(2048, 1), Count: more}}, nil)
			return fmt.Sprint(err)
		}
	}
	return func(*fairPair) string { return "" }
}

func savePair(t testing.TB, fp *fairPair) ([]byte, []byte) {
	t.Helper()
	var a, b bytes.Buffer
	require.NoError(t, fp.s.SaveState(&a))
	require.NoError(t, fp.p.SaveState(&b))
	return a.Bytes(), b.Bytes()
}

func restorePair(t testing.TB, sb, pb []byte, now berth.Time) *fairPair {
	t.Helper()
	clock := berth.NewManualClock(now)
	s, err := fair.RestoreScheduler(bytes.NewReader(sb), fair.RestoreEnv{Clock: clock})
	require.NoError(t, err)
	p, err := RestoreFairPreemptor(bytes.NewReader(pb), FairPreemptorSetup{State: s, Actor: s})
	require.NoError(t, err)
	return &fairPair{s: s, p: p, clock: clock}
}

// The contract for the preemptor with its scheduler: restored mid-run
// (containers marked, earmarks and debts outstanding, applications in
// back-off), the pair decides every later round, kill and allocation as
// the original, and keeps saving the same bytes.
func TestFairStateRestoreDecidesAsOriginal(t *testing.T) {
	seeds := 16
	if testing.Short() || raceEnabled {
		seeds = 4
	}
	var marks, owed, backoff int
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 5))
			fp := newFairPair(t, rng)
			step := 0
			for range 60 + rng.IntN(200) {
				step++
				pairOp(rng, step)(fp)
			}
			marks += len(fp.p.marks)
			owed += len(fp.p.owed)
			backoff += len(fp.p.backoff)
			sb, pb := savePair(t, fp)
			rp := restorePair(t, sb, pb, fp.clock.Now())
			sb2, pb2 := savePair(t, rp)
			require.Equal(t, sb, sb2)
			require.Equal(t, pb, pb2)
			for i := range 350 {
				if i == 250 { // a restore of the restored pair, mid-run
					sb, pb := savePair(t, rp)
					rp = restorePair(t, sb, pb, rp.clock.Now())
				}
				step++
				op := pairOp(rng, step)
				want, got := op(fp), op(rp)
				require.Equal(t, want, got, "step %d after restore", i)
				if i%20 == 19 {
					a, b := savePair(t, fp)
					c, d := savePair(t, rp)
					require.Equal(t, a, c, "step %d: scheduler snapshots", i)
					require.Equal(t, b, d, "step %d: preemptor snapshots", i)
				}
			}
		})
	}
	assert.Positive(t, marks, "states with marked containers")
	assert.Positive(t, owed, "states with earmarks owed")
	assert.Positive(t, backoff, "states with applications in back-off")
}

// Truncations and bit flips are refused with typed errors and no
// preemptor; another kind, a newer version and a nil scheduler too.
func TestFairStateCorruptionRefused(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	fp := newFairPair(t, rng)
	for step := 1; step < 200; step++ {
		pairOp(rng, step)(fp)
	}
	_, pb := savePair(t, fp)
	require.Greater(t, len(pb), 40)
	for n := range len(pb) {
		p, err := RestoreFairPreemptor(bytes.NewReader(pb[:n]), FairPreemptorSetup{State: fp.s, Actor: fp.s})
		require.ErrorIs(t, err, berth.ErrCorruptState, "truncated at %d", n)
		require.Nil(t, p)
	}
	for i := range len(pb) {
		bad := bytes.Clone(pb)
		bad[i] ^= 1 << (i % 8)
		p, err := RestoreFairPreemptor(bytes.NewReader(bad), FairPreemptorSetup{State: fp.s, Actor: fp.s})
		require.Error(t, err, "flip at %d", i)
		require.Nil(t, p)
		require.True(t, errors.Is(err, berth.ErrCorruptState) || errors.Is(err, berth.ErrInvalidArgument) || errors.Is(err, berth.ErrUnsupportedVersion), "flip at %d: %v", i, err)
	}
	var other bytes.Buffer
	require.NoError(t, berth.NewStateEncoder(&other, "preempt.Proportional", 1).Finish())
	_, err := RestoreFairPreemptor(&other, FairPreemptorSetup{State: fp.s, Actor: fp.s})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
	var newer bytes.Buffer
	require.NoError(t, berth.NewStateEncoder(&newer, fairStateKind, fairStateVersion+1).Finish())
	_, err = RestoreFairPreemptor(&newer, FairPreemptorSetup{State: fp.s, Actor: fp.s})
	require.ErrorIs(t, err, berth.ErrUnsupportedVersion)
	_, err = RestoreFairPreemptor(bytes.NewReader(pb), FairPreemptorSetup{})
	require.ErrorIs(t, err, berth.ErrInvalidArgument)
}

// FuzzRestoreFairPreemptor feeds arbitrary bytes, and a valid snapshot
// edited in place with its checksum fixed, to RestoreFairPreemptor:
// nothing panics, refusals are typed, and what restores saves and
// restores again to the same bytes and can run a round.
func FuzzRestoreFairPreemptor(f *testing.F) {
	rng := rand.New(rand.NewPCG(2, 5))
	fp := newFairPair(f, rng)
	for step := 1; step < 200; step++ {
		pairOp(rng, step)(fp)
	}
	_, sample := savePair(f, fp)
	f.Add([]byte{}, false)
	f.Add(sample, false)
	f.Add([]byte{0, 30, 1}, true)
	f.Fuzz(func(t *testing.T, data []byte, edit bool) {
		in := data
		if edit && len(sample) > 16 {
			in = bytes.Clone(sample)
			for i := 0; i+2 < len(data); i += 3 {
				off := int(binary.BigEndian.Uint16(data[i:])) % (len(in) - 16)
				in[off] ^= data[i+2]
			}
			n := len(in) - 4
			binary.LittleEndian.PutUint32(in[n:], crc32.Checksum(in[:n], crc32.MakeTable(crc32.Castagnoli)))
		}
		p, err := RestoreFairPreemptor(bytes.NewReader(in), FairPreemptorSetup{State: fp.s, Actor: fp.s})
		if err != nil {
			require.Nil(t, p)
			require.True(t, errors.Is(err, berth.ErrCorruptState) || errors.Is(err, berth.ErrInvalidArgument) ||
				errors.Is(err, berth.ErrUnsupportedVersion), "untyped error %v", err)
			return
		}
		var a bytes.Buffer
		require.NoError(t, p.SaveState(&a))
		p2, err := RestoreFairPreemptor(bytes.NewReader(a.Bytes()), FairPreemptorSetup{State: fp.s, Actor: fp.s})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, p2.SaveState(&b))
		require.Equal(t, a.Bytes(), b.Bytes())
	})
}

// A host writes the scheduler and the preemptor one after the other into
// one stream and reads them back in order from one buffered reader.
func TestFairStateOneStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	fp := newFairPair(t, rng)
	for step := 1; step < 150; step++ {
		pairOp(rng, step)(fp)
	}
	var stream bytes.Buffer
	require.NoError(t, fp.s.SaveState(&stream))
	require.NoError(t, fp.p.SaveState(&stream))
	br := bufio.NewReader(&stream)
	s, err := fair.RestoreScheduler(br, fair.RestoreEnv{Clock: berth.NewManualClock(fp.clock.Now())})
	require.NoError(t, err)
	p, err := RestoreFairPreemptor(br, FairPreemptorSetup{State: s, Actor: s})
	require.NoError(t, err)
	a, b := savePair(t, fp)
	c, d := savePair(t, &fairPair{s: s, p: p})
	require.Equal(t, a, c)
	require.Equal(t, b, d)
}
