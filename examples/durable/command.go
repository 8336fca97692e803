package durable

import (
	"encoding"
	"strconv"

	"github.com/berthsched/berth"
	"github.com/berthsched/berth/plan"
	"github.com/berthsched/berth/queue"
)

// Kind names a command type; it is the second byte of every encoded
// command, so its values are part of the format and never change.
type Kind uint8

// The command kinds. New kinds take new numbers; a number is never reused.
const (
	KindAdvanceClock      Kind = 1
	KindAddNode           Kind = 2
	KindRemoveNode        Kind = 3
	KindHeartbeat         Kind = 4
	KindSubmitApp         Kind = 5
	KindAllocate          Kind = 6
	KindFinishApp         Kind = 7
	KindKillApp           Kind = 8
	KindKillContainer     Kind = 9
	KindNewReservationID  Kind = 10
	KindSubmitReservation Kind = 11
	KindUpdateReservation Kind = 12
	KindDeleteReservation Kind = 13
	KindRunFollower       Kind = 14
	KindPreemptionRound   Kind = 15
	KindReloadConfig      Kind = 16
	KindMoveApp           Kind = 17
)

var kindNames = [...]string{
	KindAdvanceClock: "AdvanceClock", KindAddNode: "AddNode", KindRemoveNode: "RemoveNode",
	KindHeartbeat: "Heartbeat", KindSubmitApp: "SubmitApp", KindAllocate: "Allocate",
	KindFinishApp: "FinishApp", KindKillApp: "KillApp", KindKillContainer: "KillContainer",
	KindNewReservationID: "NewReservationID", KindSubmitReservation: "SubmitReservation",
	KindUpdateReservation: "UpdateReservation", KindDeleteReservation: "DeleteReservation",
	KindRunFollower: "RunFollower", KindPreemptionRound: "PreemptionRound", KindReloadConfig: "ReloadConfig",
	KindMoveApp: "MoveApp",
}

// String names the kind as its command type.
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Command is one state-changing call of a host on its [Cluster]: typed,
// comparable field by field, and serialisable with AppendBinary (read back
// with [DecodeCommand]). The set is closed: [Cluster.Apply] knows every
// command type of this package, which is what makes a journal of them a
// complete record.
type Command interface {
	// Kind tells the command's type.
	Kind() Kind
	// AppendBinary appends the command's encoding (see [DecodeCommand])
	// to b. It never fails; the error is for encoding.BinaryAppender.
	encoding.BinaryAppender
	// command keeps the set closed.
	command()
}

func header(b []byte, k Kind) []byte { return append(b, CommandVersion, byte(k)) }

// AdvanceClock moves the cluster's clock to To. Time is a command like any
// other, so a replay sees every decision at the time it was made; the
// clock never goes back (To before the current time is refused).
type AdvanceClock struct{ To berth.Time }

// Kind implements Command.
func (AdvanceClock) Kind() Kind { return KindAdvanceClock }
func (AdvanceClock) command()   {}

// AppendBinary implements Command.
func (c AdvanceClock) AppendBinary(b []byte) ([]byte, error) {
	return putVarint(header(b, KindAdvanceClock), c.To), nil
}
func decodeAdvanceClock(d *dec) Command {
	d.field = "To"
	return AdvanceClock{To: d.varint()}
}

// AddNode adds a node to the scheduler (YARN's NODE_ADDED).
type AddNode struct{ Node queue.NodeSpec }

// Kind implements Command.
func (AddNode) Kind() Kind { return KindAddNode }
func (AddNode) command()   {}

// AppendBinary implements Command.
func (c AddNode) AppendBinary(b []byte) ([]byte, error) {
	b = header(b, KindAddNode)
	b = putString(b, c.Node.ID)
	b = putString(b, c.Node.Rack)
	return putResource(b, c.Node.Capability), nil
}
func decodeAddNode(d *dec) Command {
	var c AddNode
	d.field = "Node.ID"
	c.Node.ID = d.string()
	d.field = "Node.Rack"
	c.Node.Rack = d.string()
	d.field = "Node.Capability"
	c.Node.Capability = d.resource()
	return c
}

// RemoveNode removes a node (YARN's NODE_REMOVED); its containers end as
// lost, listed in [Result.Ended].
type RemoveNode struct{ ID string }

// Kind implements Command.
func (RemoveNode) Kind() Kind { return KindRemoveNode }
func (RemoveNode) command()   {}

// AppendBinary implements Command.
func (c RemoveNode) AppendBinary(b []byte) ([]byte, error) {
	return putString(header(b, KindRemoveNode), c.ID), nil
}
func decodeRemoveNode(d *dec) Command {
	d.field = "ID"
	return RemoveNode{ID: d.string()}
}

// Heartbeat is a node update (YARN's NODE_UPDATE): the node reports the
// containers that completed on it and receives the containers allocated to
// it, listed in [Result.Allocations].
type Heartbeat struct {
	Node      string
	Completed []queue.ContainerID
}

// Kind implements Command.
func (Heartbeat) Kind() Kind { return KindHeartbeat }
func (Heartbeat) command()   {}

// AppendBinary implements Command.
func (c Heartbeat) AppendBinary(b []byte) ([]byte, error) {
	b = putString(header(b, KindHeartbeat), c.Node)
	return putContainerIDs(b, c.Completed), nil
}
func decodeHeartbeat(d *dec) Command {
	var c Heartbeat
	d.field = "Node"
	c.Node = d.string()
	d.field = "Completed"
	c.Completed = d.containerIDs()
	return c
}

// SubmitApp submits an application; [Result.Queue] is the queue it
// landed in.
type SubmitApp struct{ Spec queue.AppSpec }

// Kind implements Command.
func (SubmitApp) Kind() Kind { return KindSubmitApp }
func (SubmitApp) command()   {}

// AppendBinary implements Command. Nil and empty Groups differ (nil asks
// the scheduler's groups mapping), so the encoding keeps them apart.
func (c SubmitApp) AppendBinary(b []byte) ([]byte, error) {
	s := c.Spec
	b = header(b, KindSubmitApp)
	b = putString(b, s.ID)
	b = putString(b, s.Queue)
	b = putString(b, s.User)
	b = putString(b, s.Name)
	b = putBool(b, s.Groups != nil)
	b = putStrings(b, s.Groups)
	b = putVarint(b, int64(s.Priority))
	b = putStrings(b, s.Tags)
	b = putString(b, s.ReservationID)
	return putResource(b, s.AMResource), nil
}
func decodeSubmitApp(d *dec) Command {
	var s queue.AppSpec
	d.field = "Spec.ID"
	s.ID = d.string()
	d.field = "Spec.Queue"
	s.Queue = d.string()
	d.field = "Spec.User"
	s.User = d.string()
	d.field = "Spec.Name"
	s.Name = d.string()
	d.field = "Spec.Groups"
	hasGroups := d.bool()
	s.Groups = d.strings()
	if hasGroups && s.Groups == nil {
		s.Groups = []string{}
	}
	d.field = "Spec.Priority"
	s.Priority = d.int32()
	d.field = "Spec.Tags"
	s.Tags = d.strings()
	d.field = "Spec.ReservationID"
	s.ReservationID = d.string()
	d.field = "Spec.AMResource"
	s.AMResource = d.resource()
	return SubmitApp{Spec: s}
}

// Allocate is an application master's allocate call: new outstanding asks
// and containers released; [Result.Headroom] is the headroom returned.
type Allocate struct {
	App     string
	Asks    []queue.Ask
	Release []queue.ContainerID
}

// Kind implements Command.
func (Allocate) Kind() Kind { return KindAllocate }
func (Allocate) command()   {}

// AppendBinary implements Command.
func (c Allocate) AppendBinary(b []byte) ([]byte, error) {
	b = putString(header(b, KindAllocate), c.App)
	b = putUvarint(b, uint64(len(c.Asks)))
	for _, a := range c.Asks {
		b = putVarint(b, int64(a.Priority))
		b = putString(b, a.ResourceName)
		b = putResource(b, a.Capability)
		b = putVarint(b, int64(a.Count))
		b = putBool(b, a.StrictLocality)
	}
	return putContainerIDs(b, c.Release), nil
}
func decodeAllocate(d *dec) Command {
	var c Allocate
	d.field = "App"
	c.App = d.string()
	d.field = "Asks"
	c.Asks = list(d, func() queue.Ask {
		return queue.Ask{Priority: d.int32(), ResourceName: d.string(), Capability: d.resource(),
			Count: int(d.varint()), StrictLocality: d.bool()}
	})
	d.field = "Release"
	c.Release = d.containerIDs()
	return c
}

// FinishApp ends an application; its live containers are in
// [Result.Ended].
type FinishApp struct{ App string }

// Kind implements Command.
func (FinishApp) Kind() Kind { return KindFinishApp }
func (FinishApp) command()   {}

// AppendBinary implements Command.
func (c FinishApp) AppendBinary(b []byte) ([]byte, error) {
	return putString(header(b, KindFinishApp), c.App), nil
}
func decodeFinishApp(d *dec) Command {
	d.field = "App"
	return FinishApp{App: d.string()}
}

// KillApp kills an application (an administrator's or the host's
// decision); its containers are in [Result.Ended].
type KillApp struct{ App string }

// Kind implements Command.
func (KillApp) Kind() Kind { return KindKillApp }
func (KillApp) command()   {}

// AppendBinary implements Command.
func (c KillApp) AppendBinary(b []byte) ([]byte, error) {
	return putString(header(b, KindKillApp), c.App), nil
}
func decodeKillApp(d *dec) Command {
	d.field = "App"
	return KillApp{App: d.string()}
}

// KillContainer kills one container; it is [Result.Ended]'s only entry.
type KillContainer struct{ ID queue.ContainerID }

// Kind implements Command.
func (KillContainer) Kind() Kind { return KindKillContainer }
func (KillContainer) command()   {}

// AppendBinary implements Command.
func (c KillContainer) AppendBinary(b []byte) ([]byte, error) {
	return putUvarint(header(b, KindKillContainer), uint64(c.ID)), nil
}
func decodeKillContainer(d *dec) Command {
	d.field = "ID"
	return KillContainer{ID: queue.ContainerID(d.uvarint())}
}

// NewReservationID draws the next reservation id from the reservation
// system's counter (REST new-reservation); it is [Result.Reservation].
// Drawing changes the counter, so it is a command.
type NewReservationID struct{}

// Kind implements Command.
func (NewReservationID) Kind() Kind { return KindNewReservationID }
func (NewReservationID) command()   {}

// AppendBinary implements Command.
func (NewReservationID) AppendBinary(b []byte) ([]byte, error) {
	return header(b, KindNewReservationID), nil
}

func putDefinition(b []byte, def *plan.Definition) []byte {
	b = putBool(b, def != nil)
	if def == nil {
		return b
	}
	b = putVarint(b, def.Arrival)
	b = putVarint(b, def.Deadline)
	b = putString(b, def.Name)
	b = putVarint(b, int64(def.Priority))
	b = putVarint(b, def.Period)
	b = putUvarint(b, uint64(len(def.Stages)))
	for _, s := range def.Stages {
		b = putResource(b, s.Capability)
		b = putVarint(b, s.Containers)
		b = putVarint(b, s.Concurrency)
		b = putVarint(b, s.Duration)
	}
	return putVarint(b, int64(def.Interpreter.Code())) // YARN's code
}

func (d *dec) definition() *plan.Definition {
	d.field = "Definition"
	if !d.bool() {
		return nil
	}
	def := &plan.Definition{}
	def.Arrival = d.varint()
	def.Deadline = d.varint()
	def.Name = d.string()
	def.Priority = d.int32()
	def.Period = d.varint()
	d.field = "Definition.Stages"
	def.Stages = list(d, func() plan.Stage {
		return plan.Stage{Capability: d.resource(), Containers: d.varint(), Concurrency: d.varint(), Duration: d.varint()}
	})
	d.field = "Definition.Interpreter"
	code := d.varint()
	var err error
	if def.Interpreter, err = plan.InterpreterOf(code); err != nil {
		def.Interpreter = plan.Interpreter(code) // a refused request, kept as sent for the replay
	}
	return def
}

// SubmitReservation submits a reservation (REST submit); the agent places
// it or the call fails with the reason. One arriving within a plan step is
// published at once, as in YARN: its queue exists when the command
// returns, and what the publication ended comes with the next
// RunFollower.
type SubmitReservation struct{ Request plan.SubmissionRequest }

// Kind implements Command.
func (SubmitReservation) Kind() Kind { return KindSubmitReservation }
func (SubmitReservation) command()   {}

// AppendBinary implements Command.
func (c SubmitReservation) AppendBinary(b []byte) ([]byte, error) {
	r := c.Request
	b = putString(header(b, KindSubmitReservation), r.Queue)
	b = putReservationID(b, r.ID)
	b = putDefinition(b, r.Definition)
	return putString(b, r.User), nil
}
func decodeSubmitReservation(d *dec) Command {
	var r plan.SubmissionRequest
	d.field = "Queue"
	r.Queue = d.string()
	d.field = "ID"
	r.ID = d.reservationID()
	r.Definition = d.definition()
	d.field = "User"
	r.User = d.string()
	return SubmitReservation{Request: r}
}

// UpdateReservation replaces a reservation's definition (REST update).
type UpdateReservation struct{ Request plan.UpdateRequest }

// Kind implements Command.
func (UpdateReservation) Kind() Kind { return KindUpdateReservation }
func (UpdateReservation) command()   {}

// AppendBinary implements Command.
func (c UpdateReservation) AppendBinary(b []byte) ([]byte, error) {
	r := c.Request
	b = putReservationID(header(b, KindUpdateReservation), r.ID)
	b = putDefinition(b, r.Definition)
	return putString(b, r.User), nil
}
func decodeUpdateReservation(d *dec) Command {
	var r plan.UpdateRequest
	d.field = "ID"
	r.ID = d.reservationID()
	r.Definition = d.definition()
	d.field = "User"
	r.User = d.string()
	return UpdateReservation{Request: r}
}

// DeleteReservation deletes a reservation (REST delete).
type DeleteReservation struct{ Request plan.DeleteRequest }

// Kind implements Command.
func (DeleteReservation) Kind() Kind { return KindDeleteReservation }
func (DeleteReservation) command()   {}

// AppendBinary implements Command.
func (c DeleteReservation) AppendBinary(b []byte) ([]byte, error) {
	b = putReservationID(header(b, KindDeleteReservation), c.Request.ID)
	return putString(b, c.Request.User), nil
}
func decodeDeleteReservation(d *dec) Command {
	var r plan.DeleteRequest
	d.field = "ID"
	r.ID = d.reservationID()
	d.field = "User"
	r.User = d.string()
	return DeleteReservation{Request: r}
}

// RunFollower runs the plan follower at the cluster's time (YARN's
// PlanFollower timer task): it publishes every plan to the scheduler as
// reservation queues. [Result.Follower] has the results of the
// publications since the last run, then one per plan.
type RunFollower struct{}

// Kind implements Command.
func (RunFollower) Kind() Kind { return KindRunFollower }
func (RunFollower) command()   {}

// AppendBinary implements Command.
func (RunFollower) AppendBinary(b []byte) ([]byte, error) { return header(b, KindRunFollower), nil }

// PreemptionRound runs one round of the preemption policy at the
// cluster's time (YARN's SchedulingMonitor tick); the round's report is in
// [Result.Proportional] or [Result.FairRound] and the containers it killed
// in [Result.Ended].
type PreemptionRound struct{}

// Kind implements Command.
func (PreemptionRound) Kind() Kind { return KindPreemptionRound }
func (PreemptionRound) command()   {}

// AppendBinary implements Command.
func (PreemptionRound) AppendBinary(b []byte) ([]byte, error) {
	return header(b, KindPreemptionRound), nil
}

// ReloadConfig reconfigures the scheduler from the text of its
// configuration file: a capacity-scheduler.xml for the capacity scheduler
// (its preemption keys reconfigure the proportional policy too), a
// fair-scheduler.xml allocation file for the fair scheduler. The file's
// text is the command, so a replay parses exactly what the host parsed.
type ReloadConfig struct{ File []byte }

// Kind implements Command.
func (ReloadConfig) Kind() Kind { return KindReloadConfig }
func (ReloadConfig) command()   {}

// AppendBinary implements Command.
func (c ReloadConfig) AppendBinary(b []byte) ([]byte, error) {
	b = header(b, KindReloadConfig)
	b = putUvarint(b, uint64(len(c.File)))
	return append(b, c.File...), nil
}
func decodeReloadConfig(d *dec) Command {
	d.field = "File"
	return ReloadConfig{File: d.bytes()}
}

// MoveApp moves an application to another leaf queue (YARN's
// moveApplicationAcrossQueues); [Result.Queue] is the queue it landed in.
type MoveApp struct {
	App    string
	Target string
}

// Kind implements Command.
func (MoveApp) Kind() Kind { return KindMoveApp }
func (MoveApp) command()   {}

// AppendBinary implements Command.
func (c MoveApp) AppendBinary(b []byte) ([]byte, error) {
	b = putString(header(b, KindMoveApp), c.App)
	return putString(b, c.Target), nil
}
func decodeMoveApp(d *dec) Command {
	var c MoveApp
	d.field = "App"
	c.App = d.string()
	d.field = "Target"
	c.Target = d.string()
	return c
}
