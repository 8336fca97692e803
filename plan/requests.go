package plan

import (
	"encoding/json"

	"github.com/berthsched/berth"
)

// The reservation system's requests and responses, as YARN's REST API
// writes them (see restjson.go for the forms it reads).

// NewReservationResponse is the body of REST new-reservation.
type NewReservationResponse struct {
	// ID is the fresh reservation id.
	ID ReservationID `json:"reservation-id"`
}

// SubmissionRequest is the body of REST submit plus the caller.
type SubmissionRequest struct {
	// Queue is the reservable queue (its plan) to reserve in.
	Queue string `json:"queue"`
	// ID is an id from NewReservationID.
	ID ReservationID `json:"reservation-id"`
	// Definition is what to reserve.
	Definition *Definition `json:"reservation-definition"`
	// User is the authenticated caller (not part of the body).
	User string `json:"-"`
}

// UpdateRequest is the body of REST update plus the caller.
type UpdateRequest struct {
	// ID names the reservation to change.
	ID ReservationID `json:"reservation-id"`
	// Definition replaces the reservation's definition.
	Definition *Definition `json:"reservation-definition"`
	// User is the authenticated caller (not part of the body).
	User string `json:"-"`
}

// DeleteRequest is the body of REST delete plus the caller.
type DeleteRequest struct {
	// ID names the reservation to delete.
	ID ReservationID `json:"reservation-id"`
	// User is the authenticated caller (not part of the body).
	User string `json:"-"`
}

// ListRequest holds the query of REST list. Start ≤ 0 reads as 0 and
// End < 0 as "no end", as in YARN.
type ListRequest struct {
	// Queue is the reservable queue to list.
	Queue string `json:"queue"`
	// ID, when set, lists that reservation only.
	ID ReservationID `json:"reservation-id"`
	// Start and End bound the listed window, [Start, End] (closed, as YARN).
	Start berth.Time `json:"start-time"`
	End   berth.Time `json:"end-time"`
	// IncludeAllocations adds each reservation's intervals.
	IncludeAllocations bool `json:"include-resource-allocations"`
	// User is the authenticated caller (not part of the query), checked by
	// the [Authorizer] if one is configured.
	User string `json:"-"`
}

// ListResponse is REST list's ReservationListInfo.
type ListResponse struct {
	// Reservations are ordered by (start, end, id).
	Reservations []ReservationInfo `json:"reservations"`
}

// ReservationInfo describes one reservation (YARN's
// ReservationAllocationState / REST ReservationInfo).
type ReservationInfo struct {
	// AcceptanceTime is when the plan accepted the reservation.
	AcceptanceTime berth.Time `json:"acceptance-time"`
	// User owns the reservation.
	User string `json:"user"`
	// Allocations are the intervals, when asked for (else empty).
	Allocations []ResourceAllocationInfo `json:"resource-allocations"`
	// ID names the reservation.
	ID ReservationID `json:"reservation-id"`
	// Definition is the reservation's contract.
	Definition Definition `json:"reservation-definition"`
}

// ResourceAllocationInfo is one interval of an allocation (REST
// ResourceAllocationInfo: startTime, endTime, resource).
type ResourceAllocationInfo struct {
	// Start and End bound the interval, [Start, End).
	Start berth.Time
	End   berth.Time
	// Resource is held over the interval.
	Resource berth.Resource
}

type resourceAllocationJSON struct {
	Resource resourceJSON       `json:"resource"`
	Start    number[berth.Time] `json:"startTime"`
	End      number[berth.Time] `json:"endTime"`
}

// MarshalJSON writes {"resource":{"memory":…,"vCores":…},"startTime":…,"endTime":…}.
func (r ResourceAllocationInfo) MarshalJSON() ([]byte, error) {
	return json.Marshal(resourceAllocationJSON{Resource: toResourceJSON(r.Resource), Start: num(r.Start), End: num(r.End)})
}

// UnmarshalJSON reads the form MarshalJSON writes, numbers also as strings.
func (r *ResourceAllocationInfo) UnmarshalJSON(b []byte) error {
	var w resourceAllocationJSON
	if err := decode(b, &w, "resource-allocations"); err != nil {
		return err
	}
	*r = ResourceAllocationInfo{Start: w.Start.v, End: w.End.v, Resource: w.Resource.resource()}
	return nil
}

// UnmarshalJSON reads a list query, numbers and the boolean also as
// strings. User, not part of the body, is kept.
func (r *ListRequest) UnmarshalJSON(b []byte) error {
	var w struct {
		Queue              string             `json:"queue"`
		ID                 ReservationID      `json:"reservation-id"`
		Start              number[berth.Time] `json:"start-time"`
		End                number[berth.Time] `json:"end-time"`
		IncludeAllocations flag               `json:"include-resource-allocations"`
	}
	if err := decode(b, &w, "reservation-list-request"); err != nil {
		return err
	}
	*r = ListRequest{Queue: w.Queue, ID: w.ID, Start: w.Start.v, End: w.End.v,
		IncludeAllocations: bool(w.IncludeAllocations), User: r.User}
	return nil
}

// UnmarshalJSON reads YARN's ReservationListInfo, with "reservations" an
// array or, as YARN's JSON writer prints a single reservation, an object.
func (r *ListResponse) UnmarshalJSON(b []byte) error {
	var w struct {
		Reservations list[ReservationInfo] `json:"reservations"`
	}
	if err := decode(b, &w, "reservations"); err != nil {
		return err
	}
	*r = ListResponse{Reservations: []ReservationInfo(w.Reservations)}
	if r.Reservations == nil {
		r.Reservations = []ReservationInfo{}
	}
	return nil
}

// UnmarshalJSON reads YARN's ReservationInfo, numbers also as strings and
// "resource-allocations" also as a single object.
func (r *ReservationInfo) UnmarshalJSON(b []byte) error {
	var w struct {
		AcceptanceTime number[berth.Time]           `json:"acceptance-time"`
		User           string                       `json:"user"`
		Allocations    list[ResourceAllocationInfo] `json:"resource-allocations"`
		ID             ReservationID                `json:"reservation-id"`
		Definition     Definition                   `json:"reservation-definition"`
	}
	if err := decode(b, &w, "reservations"); err != nil {
		return err
	}
	allocs := []ResourceAllocationInfo(w.Allocations)
	if allocs == nil {
		allocs = []ResourceAllocationInfo{}
	}
	*r = ReservationInfo{AcceptanceTime: w.AcceptanceTime.v, User: w.User, Allocations: allocs, ID: w.ID, Definition: w.Definition}
	return nil
}

// InfoOf converts an allocation for listing, with its intervals only when
// includeAllocations is set (YARN's convertAllocationsToReservationInfo);
// the zero info for nil.
func InfoOf(a *Allocation, includeAllocations bool) ReservationInfo {
	if a == nil {
		return ReservationInfo{Allocations: []ResourceAllocationInfo{}}
	}
	info := ReservationInfo{AcceptanceTime: a.AcceptedAt, User: a.User, ID: a.ID,
		Definition: a.Definition.Clone(), Allocations: []ResourceAllocationInfo{}}
	if includeAllocations {
		for _, e := range a.Intervals {
			info.Allocations = append(info.Allocations, ResourceAllocationInfo{Start: e.Interval.Start, End: e.Interval.End, Resource: e.Resource})
		}
	}
	return info
}
