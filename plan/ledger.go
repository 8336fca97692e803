package plan

import "sync"

// idLedger tells a [System] holding the plan which ids the plan holds and
// which it removed, whoever added or removed them (the system, or the plan
// follower and the replanner calling the plan directly). Its lock is a
// leaf: nothing else is locked while it is held, so the plan (under its
// own lock) and the system (under its own) can both take it, and the
// system reads what the plan holds without waiting on a change in
// progress (a policy may take its time validating one).
type idLedger struct {
	mu      sync.Mutex
	tracked bool
	held    map[ReservationID]struct{}
	gone    []ReservationID // removed since the system last took them
}

// track starts keeping the ledger (a system took the plan), with the ids
// the plan holds. The caller holds the plan's lock, so no change is missed.
func (g *idLedger) track(ids []ReservationID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tracked = true
	g.held = make(map[ReservationID]struct{}, len(ids))
	for _, id := range ids {
		g.held[id] = struct{}{}
	}
}

// added records an id the plan took.
func (g *idLedger) added(id ReservationID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tracked {
		g.held[id] = struct{}{}
	}
}

// removed records ids the plan dropped.
func (g *idLedger) removed(ids ...ReservationID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tracked {
		for _, id := range ids {
			delete(g.held, id)
		}
		g.gone = append(g.gone, ids...)
	}
}

// holds reports whether the plan holds id now.
func (g *idLedger) holds(id ReservationID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.held[id]
	return ok
}

// take returns and clears the ids removed since the last call.
func (g *idLedger) take() []ReservationID {
	g.mu.Lock()
	defer g.mu.Unlock()
	ids := g.gone
	g.gone = nil
	return ids
}

// trackIDs starts p's ledger with the ids p holds.
func (p *Plan) trackIDs() {
	p.mu.RLock()
	defer p.mu.RUnlock()
	ids := make([]ReservationID, 0, p.st.table.Len())
	p.st.table.Ascend(func(e idEntry) bool {
		ids = append(ids, e.id)
		return true
	})
	p.ids.track(ids)
}
