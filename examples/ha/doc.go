// Command ha runs three Berth replicas behind hashicorp/raft (v1.8.0) in
// one process, with raft's in-memory transport and stores: every command
// (package durable's typed host calls) goes through the raft log, each
// replica's FSM applies it to its own durable.Cluster, and raft snapshots
// are the Cluster's snapshot stream, so a replica that missed compacted
// entries is brought back by an installed snapshot. The demo sends a
// stream of commands, kills the leader half-way, lets a new leader carry
// on, restarts the old one and checks that every replica ends in the same
// state.
//
// It is its own Go module so that the library's go.mod does not gain raft:
// run it with
//
//	cd examples/ha && go run .
//	cd examples/ha && go test -race ./...
//
// The replicas agree because Berth is deterministic: the same commands
// from the same configuration give the same state, byte for byte, which
// the tests check after every command by comparing snapshot digests.
//
// # Differences from YARN
//
// YARN's ResourceManager HA is active/standby: ZooKeeper elects the active
// one and the standby, on failover, reloads applications and reservations
// from the state store and waits for node managers to report their
// containers. Here all three replicas hold the full state all the time,
// scheduler included, and a failover loses no decision.
package main
