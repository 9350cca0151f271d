// Package supervise builds the advisor of one session, whatever its
// mode and whatever its host.
//
// # Modes
//
// The settings (advisor.mode, advisor.reviewer, advisor.fleet) and
// WATCHDOG.yml's roster choose among five: the single continuous
// runtime (on a model, or vigil's detectors alone), the roster of
// continuous runtimes sharing one [advisor.RosterGuard], the periodic
// mode ([advisor.Periodic]) alone or as a roster, and a fleet's advisor
// ([fleet.Link]) served by workers over NATS. [New] builds the one the
// settings say and returns it as an [Advisor]: start, notify, wait for
// the backlog, consult, report status, dump, stop and say what was
// spent. No caller tells the modes apart.
//
// # Hosts
//
// A host says what it offers in a [Host]: the [advisor.Host] the
// runtimes talk through, a periodic host that can fork when the periodic
// mode is wanted (vigil's agent forks onto the agent's own model, a
// sidecar onto the advisor's), where transcripts go, and where its log
// and warnings go. vigil's agent (internal/cli's app), the sidecar of an
// attached agent, and a fleet worker ([Config.Reviewers]) all build
// their advisor here, from one [Config]: the settings, the roster, the
// models, and how to tell the user.
package supervise
