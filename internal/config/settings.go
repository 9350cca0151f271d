package config

import (
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// Settings are vigil's settings: the defaults, then the user file, then the
// project file. The yaml tags are the keys of config.yml; docs/config.md
// describes each.
type Settings struct {
	// ModelRoles maps a role (see [Roles]) to a model reference,
	// provider/model[:thinking]. No role has a default.
	ModelRoles map[string]string `yaml:"modelRoles"`
	Advisor    Advisor           `yaml:"advisor"`
	Compaction Compaction        `yaml:"compaction"`
	Tools      Tools             `yaml:"tools"`
	UI         UI                `yaml:"ui"`
}

// UI are the terminal UI's settings.
type UI struct {
	// Inline draws the UI in the terminal's normal screen and prints the
	// transcript into its scrollback, where it stays after vigil exits,
	// as --inline does; off, the UI takes the whole screen. --inline and
	// --no-inline override it.
	Inline bool `yaml:"inline"`
}

// Role returns the model reference set for a role, and whether one is set.
func (s *Settings) Role(name string) (llm.Ref, bool) {
	v, ok := s.ModelRoles[name]
	if !ok {
		return llm.Ref{}, false
	}
	ref, err := llm.ParseRef(v)
	if err != nil {
		return llm.Ref{}, false
	}
	return ref, true
}

// The model roles. The advisor uses [RoleAdvisor] and has no fallback: with
// no advisor role set it stays inactive.
const (
	RoleDefault  = "default"
	RoleSmol     = "smol"
	RoleSlow     = "slow"
	RoleVision   = "vision"
	RolePlan     = "plan"
	RoleDesigner = "designer"
	RoleCommit   = "commit"
	RoleTitle    = "title"
	RoleTask     = "task"
	RoleAdvisor  = "advisor"
)

// Roles lists the model roles modelRoles accepts, in omp's order, so an omp
// user's modelRoles carry over.
func Roles() []string {
	return []string{RoleDefault, RoleSmol, RoleSlow, RoleVision, RolePlan, RoleDesigner, RoleCommit, RoleTitle, RoleTask, RoleAdvisor}
}

// Advisor are the advisor's settings. Its model is modelRoles.advisor.
type Advisor struct {
	// Enabled turns the advisor on for new sessions; /advisor on|off
	// writes it to the user file.
	Enabled bool `yaml:"enabled"`
	// Subagents gives subagent sessions their own advisor.
	Subagents bool `yaml:"subagents"`
	// Reviewer is what reviews the agent's steps: "model" (the default:
	// modelRoles.advisor) or "rules" (vigil's zero-token detectors alone,
	// no model and no cost).
	Reviewer string `yaml:"reviewer"`
	// Gate, when "rules", lets the model review only the steps in which a
	// detector found something; "off" (the default) reviews every step.
	Gate string `yaml:"gate"`
	// Mode is how often the advisor reviews.
	Mode Mode `yaml:"mode"`
	// Cadence is how often the continuous advisor's model reviews: "every"
	// step (the default), "final" (when a run ends), or a whole number N
	// (every N-th step, the skipped steps in that review). A detector's
	// finding or signal is reviewed at once whatever it says.
	Cadence string `yaml:"cadence"`
	// Effort is the advisor's thinking level: "model" (the default: its
	// model reference's, modelRoles.advisor's :level) or "auto" (the
	// agent's, step by step).
	Effort string `yaml:"effort"`
	// SyncBacklog makes the agent wait, at a step end, while this many
	// steps are unreviewed.
	SyncBacklog SyncBacklog `yaml:"syncBacklog"`
	// SyncTimeoutSeconds caps each such wait.
	SyncTimeoutSeconds int `yaml:"syncTimeoutSeconds"`
	// ImmuneTurns is how many agent steps after an interrupting note
	// later concerns and blockers arrive as asides instead of
	// interrupting; 0 lets every one interrupt.
	ImmuneTurns int `yaml:"immuneTurns"`
	// MaxNotesPerUpdate is how many notes other than blockers the
	// advisor delivers per update; the rest are held for the next update,
	// never dropped. A roster's is WATCHDOG.yml's.
	MaxNotesPerUpdate int      `yaml:"maxNotesPerUpdate"`
	Periodic          Periodic `yaml:"periodic"`
	// AllowPromptInjection lets the advisor's notes into the agent's
	// context, in both modes; with false it still reviews, and each note is
	// logged, shown as withheld and counted, but never sent to the agent.
	AllowPromptInjection bool `yaml:"allowPromptInjection"`
	// Promotion lists, in order, the models (provider/model[:thinking])
	// the advisor may move to when its context fills; an empty list never
	// promotes. Unset, it may move to a larger model of its own family,
	// never the agent's (see internal/models.PromotionPolicy).
	Promotion []string `yaml:"promotion"`
	// Consult are the settings of the agent's questions to the advisor
	// (the ask_advisor tool).
	Consult Consult `yaml:"consult"`
	// Roster turns advisors of the WATCHDOG.yml roster on or off by name,
	// over their enabled field; /advisor on|off NAME writes it.
	Roster map[string]bool `yaml:"roster"`
	// Fleet, with a URL, has the session's advisor served by a fleet of
	// workers (vigil serve) instead of this process.
	Fleet Fleet `yaml:"fleet"`
}

// Fleet are the settings of an agent whose advisor a fleet serves
// (docs/fleet.md): its steps go to NATS JetStream, its notes come back.
type Fleet struct {
	// URL names the NATS server(s) as NATS clients take them
	// (nats://host:4222, tls://host:4222, comma-separated); "" runs the
	// advisor in this process.
	URL string `yaml:"url"`
	// Tenant is the tenant the session belongs to (letters, digits, -
	// and _); the workers of that tenant review it.
	Tenant string `yaml:"tenant"`
	// Creds is a NATS credentials file (JWT and nkey seed); TLSCA,
	// TLSCert and TLSKey are the CA bundle to verify the server with and
	// the client certificate and key to present.
	Creds   string `yaml:"creds"`
	TLSCA   string `yaml:"tlsCA"`
	TLSCert string `yaml:"tlsCert"`
	TLSKey  string `yaml:"tlsKey"`
	// Backlog bounds the steps the fleet keeps while no worker runs, when
	// this agent is the first to make the tenant's streams (the workers'
	// own bound holds once they have run).
	Backlog int64 `yaml:"backlog"`
	// PublishTimeoutMs bounds the publication of one step: a fleet that
	// does not answer within it loses the step, and the agent goes on.
	PublishTimeoutMs int `yaml:"publishTimeoutMs"`
}

// PublishTimeout returns PublishTimeoutMs as a duration.
func (f Fleet) PublishTimeout() time.Duration {
	return time.Duration(f.PublishTimeoutMs) * time.Millisecond
}

// Consult are the settings of the ask_advisor tool: the agent's questions
// to its advisor.
type Consult struct {
	// TimeoutSeconds bounds one question, the wait for a review in
	// flight included.
	TimeoutSeconds int `yaml:"timeoutSeconds"`
	// MaxPerRun is how many questions one run of the agent may ask.
	MaxPerRun int `yaml:"maxPerRun"`
}

// Timeout returns TimeoutSeconds as a duration.
func (c Consult) Timeout() time.Duration {
	return time.Duration(c.TimeoutSeconds) * time.Second
}

// SyncTimeout returns SyncTimeoutSeconds as a duration.
func (a Advisor) SyncTimeout() time.Duration {
	return time.Duration(a.SyncTimeoutSeconds) * time.Second
}

// The values of advisor.reviewer and advisor.gate.
const (
	ReviewerModel = "model"
	ReviewerRules = "rules"
	GateOff       = "off"
	GateRules     = "rules"
)

// Mode is how often the advisor reviews.
type Mode string

// The advisor's modes.
const (
	// ModeContinuous reviews every agent step.
	ModeContinuous Mode = "continuous"
	// ModePeriodic reviews every [Periodic.EveryToolCalls] tool calls or
	// [Periodic.EveryMinutes] minutes, whichever comes first.
	ModePeriodic Mode = "periodic"
)

// SyncBacklog is "off" or the number of unreviewed steps at which the agent
// waits for the advisor: "1", "3" or "5". In the file it may be written
// bare (syncBacklog: 3).
type SyncBacklog string

// SyncOff never waits for the advisor.
const SyncOff SyncBacklog = "off"

// Threshold returns the backlog at which the agent waits, or 0 for off
// (and for any value but those listed, which loading rejects).
func (b SyncBacklog) Threshold() int {
	switch b {
	case "1":
		return 1
	case "3":
		return 3
	case "5":
		return 5
	}
	return 0
}

// Periodic are the settings of the periodic mode: its triggers (0 turns
// one off), the guidance its reviews follow and their time limit.
type Periodic struct {
	EveryToolCalls int `yaml:"everyToolCalls"`
	// EveryMinutes counts minutes of accumulated run time, not of the
	// wall clock.
	EveryMinutes int `yaml:"everyMinutes"`
	// ReviewInstructions replace the review's default guidance (what off
	// course means, when to stay quiet); trimmed, at most
	// MaxReviewInstructions characters, and "" or whitespace means the
	// default.
	ReviewInstructions string `yaml:"reviewInstructions"`
	// ReviewTimeoutSeconds bounds one review, fork and reply.
	ReviewTimeoutSeconds int `yaml:"reviewTimeoutSeconds"`
}

// MaxReviewInstructions is the most characters
// advisor.periodic.reviewInstructions may have, once trimmed.
const MaxReviewInstructions = 4000

// ReviewTimeout returns ReviewTimeoutSeconds as a duration.
func (p Periodic) ReviewTimeout() time.Duration {
	return time.Duration(p.ReviewTimeoutSeconds) * time.Second
}

// Compaction are the settings of context compaction (compaction.*), which
// the agent takes as its agent.CompactionOptions: the same fields, without
// the yaml keys.
type Compaction struct {
	Enabled bool `yaml:"enabled"`
	// ThresholdTokens, when above 0, compacts once the context exceeds
	// that many tokens.
	ThresholdTokens int `yaml:"thresholdTokens"`
	// ThresholdPercent, when above 0 (and no ThresholdTokens), compacts
	// once the context exceeds that percentage of the window.
	ThresholdPercent int `yaml:"thresholdPercent"`
	// ReserveTokens is kept free for the reply when neither threshold is
	// set.
	ReserveTokens int `yaml:"reserveTokens"`
	// KeepRecentTokens is how much of the most recent context compaction
	// keeps verbatim.
	KeepRecentTokens int `yaml:"keepRecentTokens"`
}

// Tools are the settings of the agent's tools.
type Tools struct {
	Bash   Bash   `yaml:"bash"`
	Output Output `yaml:"output"`
	// AllowOutsideRoots lets read, write, edit, grep and find reach paths
	// outside the project and the working folder. Off by default.
	AllowOutsideRoots bool `yaml:"allowOutsideRoots"`
	// LoopGuard is how many steps in a row with the same tool calls make
	// vigil's agent tell itself so, once (internal/loopguard); 0 turns the
	// guard off.
	LoopGuard int `yaml:"loopGuard"`
	// Approval is the terminal UI's approval mode: ApprovalAuto (the
	// default) runs bash, write and edit as soon as the model calls them;
	// ApprovalAsk asks the user first. Print, JSON and RPC modes follow
	// only the --approval flag.
	Approval string `yaml:"approval"`
}

// The values of tools.approval (and of the --approval flag).
const (
	ApprovalAuto = "auto"
	ApprovalAsk  = "ask"
)

// Bash are the bash tool's settings.
type Bash struct {
	// TimeoutSeconds is how long a command may run when the call gives no
	// timeout.
	TimeoutSeconds int `yaml:"timeoutSeconds"`
}

// Timeout returns TimeoutSeconds as a duration.
func (b Bash) Timeout() time.Duration { return time.Duration(b.TimeoutSeconds) * time.Second }

// Output caps what one tool result puts into the context; the rest is cut
// and the result says so.
type Output struct {
	MaxLines int `yaml:"maxLines"`
	MaxBytes int `yaml:"maxBytes"`
}

// Default returns the settings used where no file sets a key.
func Default() *Settings {
	return &Settings{
		ModelRoles: map[string]string{},
		Advisor: Advisor{
			Mode:               ModeContinuous,
			Cadence:            "every",
			Effort:             "model",
			Reviewer:           ReviewerModel,
			Gate:               GateOff,
			SyncBacklog:        SyncOff,
			SyncTimeoutSeconds: 30,
			ImmuneTurns:        3,
			MaxNotesPerUpdate:  1,
			Periodic:           Periodic{EveryToolCalls: 10, EveryMinutes: 20, ReviewTimeoutSeconds: 120},

			AllowPromptInjection: true,
			Consult:              Consult{TimeoutSeconds: 120, MaxPerRun: 5},
			Fleet:                Fleet{Tenant: "default", Backlog: 1_000_000, PublishTimeoutMs: 2000},
		},
		Compaction: Compaction{Enabled: true, ReserveTokens: 16384, KeepRecentTokens: 20000},
		Tools: Tools{
			Bash:      Bash{TimeoutSeconds: 120},
			Output:    Output{MaxLines: 2000, MaxBytes: 50 * 1024},
			LoopGuard: 5,
			Approval:  ApprovalAuto,
		},
	}
}
