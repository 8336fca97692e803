package fair

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
