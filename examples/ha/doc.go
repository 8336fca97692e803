// Command ha replicates a Berth cluster with hashicorp/raft (v1.8.0).
//
// Every command (package durable's typed host calls) goes through the
// raft log, each replica's FSM applies it to its own durable.Cluster, and
// raft snapshots are the Cluster's snapshot stream, so a replica that
// missed compacted entries is brought back by an installed snapshot.
//
// Run without flags, it is a demo of three replicas in one process, on
// raft's in-memory transport: a stream of commands, the leader killed
// half-way, a new leader carrying on, the old one restarted and caught
// up, every replica ending in the same state. With --id it is one replica
// process, on raft's TCP transport, with its raft log and stable store in
// a bbolt file and its snapshots in files under --data-dir, serving
// clients over HTTP (POST /apply, GET /read, GET /status):
//
//	cd examples/ha && go run .
//	go run . --id berth1 --peers berth1=127.0.0.1:7001,berth2=127.0.0.1:7002,berth3=127.0.0.1:7003 \
//	    --http 127.0.0.1:8001 --data-dir /tmp/berth1      # and berth2, berth3 likewise
//	cd examples/ha && go test -race ./...
//
// It is its own Go module so that the library's go.mod does not gain raft.
//
// # What is promised
//
// A command acknowledged by [Client.Apply] (or [Group.Apply]) is committed:
// it is in the log of a majority and applied on the leader, and every
// later leader has it, across crashes, leader kills and partitions, as
// long as a majority of replicas keeps its disk. Each client has a
// session and numbers its requests; a request retried after a lost
// answer is applied once and answered with its first answer, also after
// a snapshot or a restart (the sessions' last answers are replicated
// state). A leader cut off from its majority cannot acknowledge a write
// or answer a read: [Group.Read] and GET /read commit a barrier first, so
// a read sees every write acknowledged before it and nothing
// unacknowledged. The tests check these with faults injected (partitions,
// isolated leaders, killed and restarted replicas, processes killed with
// SIGKILL) and a history checked for linearizability with porcupine.
//
// What is not: a request whose answer never came (ErrOutcomeUnknown) may
// or may not have been applied. The Client keeps it: the same command
// sent again on the same Client is a retry of it (applied at most once,
// answered with its first answer), while another command gives it up
// ([Group.Apply] calls are each a new request); a client whose session
// expired (more than MaxSessions clients since it was last used) gets
// ErrSessionExpired and must open another; a write is not
// acknowledged while no majority is up; replicas do not survive losing a
// majority of their disks; a replica whose own files are damaged (its
// raft log, its stable store, a snapshot it needs) refuses to start with
// an error wrapping berth.ErrCorruptState that names the file, and comes
// back only as a new member (taken out of the group, its data directory
// emptied, added back); and the HTTP API has no authentication: it is
// for loopback.
//
// The replicas agree because Berth is deterministic: the same commands
// from the same configuration give the same state, byte for byte, which
// the tests check by comparing snapshot digests.
//
// # Differences from YARN
//
// YARN's ResourceManager HA is active/standby: ZooKeeper elects the active
// one and the standby, on failover, reloads applications and reservations
// from the state store and waits for node managers to report their
// containers. Here all three replicas hold the full state all the time,
// scheduler included, and a failover loses no decision.
package main
