package queue

import "slices"

// idPageSize is the number of container ids one page of an IDIndex
// covers.
const idPageSize = 64

// IDIndex finds a scheduler's live containers (any *T) by id, where a hash
// map would cost a map operation per allocation and release. Ids come
// from one counter, so the containers of a heartbeat, and the live ones
// generally, cluster in id ranges: the index keeps a page of slots per
// range of idPageSize ids, made when a container of the range is added and
// dropped when its last one goes. Adding a container usually lands on the page last used,
// so an allocation costs no hash-map operation, and the page map stays
// small (about live/idPageSize pages when ids are dense). A page left
// with a single long-lived container costs idPageSize pointers. The zero
// value is an empty index ready to use; it is not safe for concurrent use.
type IDIndex[T any] struct {
	pages   map[ContainerID]*idPage[T] // by id / idPageSize
	n       int
	lastKey ContainerID
	last    *idPage[T] // the page of lastKey, or nil
}

type idPage[T any] struct {
	slot [idPageSize]*T
	n    int
}

func (x *IDIndex[T]) page(key ContainerID) *idPage[T] {
	if x.last != nil && x.lastKey == key {
		return x.last
	}
	p := x.pages[key]
	if p != nil {
		x.last, x.lastKey = p, key
	}
	return p
}

// Get returns the value stored under id.
func (x *IDIndex[T]) Get(id ContainerID) (*T, bool) {
	p := x.page(id / idPageSize)
	if p == nil {
		return nil, false
	}
	c := p.slot[id%idPageSize]
	return c, c != nil
}

// Put stores c under id, replacing what id held.
func (x *IDIndex[T]) Put(id ContainerID, c *T) {
	key := id / idPageSize
	p := x.page(key)
	if p == nil {
		p = new(idPage[T])
		if x.pages == nil {
			x.pages = map[ContainerID]*idPage[T]{}
		}
		x.pages[key] = p
		x.last, x.lastKey = p, key
	}
	if p.slot[id%idPageSize] == nil {
		p.n++
		x.n++
	}
	p.slot[id%idPageSize] = c
}

// Delete removes what id holds, if anything.
func (x *IDIndex[T]) Delete(id ContainerID) {
	key := id / idPageSize
	p := x.page(key)
	if p == nil || p.slot[id%idPageSize] == nil {
		return
	}
	p.slot[id%idPageSize] = nil
	p.n--
	x.n--
	if p.n == 0 {
		delete(x.pages, key)
		if x.last == p {
			x.last = nil
		}
	}
}

// Len returns the number of ids held.
func (x *IDIndex[T]) Len() int { return x.n }

// Ascend calls f on the values in id order.
func (x *IDIndex[T]) Ascend(f func(*T)) {
	keys := make([]ContainerID, 0, len(x.pages))
	for k := range x.pages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, c := range &x.pages[k].slot {
			if c != nil {
				f(c)
			}
		}
	}
}

// All returns the values in id order.
func (x *IDIndex[T]) All() []*T {
	out := make([]*T, 0, x.n)
	x.Ascend(func(c *T) { out = append(out, c) })
	return out
}
