// Package yarnplan wires a reservation plan the way YARN's reservation
// system does by default, for the example hosts that build plans (the
// simulator's scenarios and the durable cluster). The library keeps plan,
// agent and policy apart (plan declares the interfaces, agent and policy
// implement them), so no library package can hold this wiring without an
// import cycle; the hosts share it here instead of each writing it out.
package yarnplan
