package fair

import "slices"

// livePageSize is the number of container ids one page of a liveIndex
// covers.
const livePageSize = 64

// liveIndex finds live containers by id. Ids come from one counter, so
// the containers of a heartbeat, and the live ones generally, cluster in
// id ranges: the index keeps a page of slots per range of livePageSize
// ids, made when a container of the range is added and dropped when its
// last one goes. Adding a container usually lands on the page last used,
// so an allocation costs no hash-map operation, and the page map stays
// small (about live/livePageSize pages when ids are dense). A page left
// with a single long-lived container costs livePageSize pointers.
type liveIndex struct {
	pages   map[ContainerID]*livePage // by id / livePageSize
	n       int
	lastKey ContainerID
	last    *livePage // the page of lastKey, or nil
}

type livePage struct {
	slot [livePageSize]*container
	n    int
}

func newLiveIndex() liveIndex { return liveIndex{pages: map[ContainerID]*livePage{}} }

func (x *liveIndex) page(key ContainerID) *livePage {
	if x.last != nil && x.lastKey == key {
		return x.last
	}
	p := x.pages[key]
	if p != nil {
		x.last, x.lastKey = p, key
	}
	return p
}

// get returns the live container with id id.
func (x *liveIndex) get(id ContainerID) (*container, bool) {
	p := x.page(id / livePageSize)
	if p == nil {
		return nil, false
	}
	c := p.slot[id%livePageSize]
	return c, c != nil
}

// put adds c under its id, which must not be live.
func (x *liveIndex) put(c *container) {
	id := c.ID
	key := id / livePageSize
	p := x.page(key)
	if p == nil {
		p = new(livePage)
		x.pages[key] = p
		x.last, x.lastKey = p, key
	}
	if p.slot[id%livePageSize] == nil {
		p.n++
		x.n++
	}
	p.slot[id%livePageSize] = c
}

// del removes the container with id id, if live.
func (x *liveIndex) del(id ContainerID) {
	key := id / livePageSize
	p := x.page(key)
	if p == nil || p.slot[id%livePageSize] == nil {
		return
	}
	p.slot[id%livePageSize] = nil
	p.n--
	x.n--
	if p.n == 0 {
		delete(x.pages, key)
		if x.last == p {
			x.last = nil
		}
	}
}

// len returns the number of live containers.
func (x *liveIndex) len() int { return x.n }

// ascend calls f on the live containers in id order.
func (x *liveIndex) ascend(f func(*container)) {
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

// all returns the live containers in id order.
func (x *liveIndex) all() []*container {
	out := make([]*container, 0, x.n)
	x.ascend(func(c *container) { out = append(out, c) })
	return out
}

// The containers of one application and of one node are kept in intrusive
// lists through the containers themselves (container.links), so that an
// allocation or a release costs no map operation. Containers are appended
// when allocated, and ids come from one increasing counter, so each list
// is in id order: walks need no sort.
const (
	appList  = 0 // container.links[appList]: the application's list
	nodeList = 1 // container.links[nodeList]: the node's list
)

// liveLink is a container's place in one list.
type liveLink struct{ prev, next *container }

// liveList is one application's or node's live containers in id order.
type liveList struct {
	head, tail *container
	n          int
}

// push appends c, whose id is above every id in l, to list w.
func (l *liveList) push(c *container, w int) {
	c.links[w] = liveLink{prev: l.tail}
	if l.tail != nil {
		l.tail.links[w].next = c
	} else {
		l.head = c
	}
	l.tail = c
	l.n++
}

// remove takes c, a member of list w, out of l.
func (l *liveList) remove(c *container, w int) {
	lk := &c.links[w]
	if lk.prev != nil {
		lk.prev.links[w].next = lk.next
	} else {
		l.head = lk.next
	}
	if lk.next != nil {
		lk.next.links[w].prev = lk.prev
	} else {
		l.tail = lk.prev
	}
	*lk = liveLink{}
	l.n--
}

// all returns l's containers in id order (a copy: safe to release them
// while ranging over it).
func (l *liveList) all(w int) []*container {
	out := make([]*container, 0, l.n)
	for c := l.head; c != nil; c = c.links[w].next {
		out = append(out, c)
	}
	return out
}
