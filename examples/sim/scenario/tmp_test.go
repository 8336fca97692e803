package scenario

import (
	"fmt"
	"sort"
	"testing"
)

func TestTmpAM(t *testing.T) {
	sc := reduced(t, "capacity", 4)
	r, err := sc.Run(Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := map[string]int{}
	for _, j := range r.Jobs {
		c[j.AMNode]++
	}
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range c {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v })
	fmt.Println(len(r.Jobs), len(l), l[:min(10, len(l))])
	fmt.Println("lost", r.Samples[len(r.Samples)-1].Lost)
}
