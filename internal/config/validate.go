package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/internal/yamlfile"
	"github.com/vigil-dev/vigil/llm"
)

// validate checks the values of s after the file name, with data, was
// overlaid. The values below it were checked already, so a bad value came
// from this file, and errors point into it.
func (s *Settings) validate(name string, data []byte) error {
	at := func(key, format string, args ...any) error {
		return yamlfile.At(name, data, key, format, args...)
	}
	roles := Roles()
	keys := make([]string, 0, len(s.ModelRoles))
	for k := range s.ModelRoles {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, role := range keys {
		key := "$.modelRoles." + yamlfile.Quote(role)
		if !slices.Contains(roles, role) {
			return at(key, "unknown model role %q (roles are %s)", role, strings.Join(roles, ", "))
		}
		if _, err := llm.ParseRef(s.ModelRoles[role]); err != nil {
			return at(key, "%v; want provider/model[:thinking]", err)
		}
	}

	a := s.Advisor
	if a.Mode != ModeContinuous && a.Mode != ModePeriodic {
		return at("$.advisor.mode", "mode is %q, want continuous or periodic", a.Mode)
	}
	if a.Reviewer != ReviewerModel && a.Reviewer != ReviewerRules {
		return at("$.advisor.reviewer", "reviewer is %q, want model or rules", a.Reviewer)
	}
	if a.Gate != GateOff && a.Gate != GateRules {
		return at("$.advisor.gate", "gate is %q, want off or rules", a.Gate)
	}
	if a.SyncBacklog != SyncOff && a.SyncBacklog.Threshold() == 0 {
		return at("$.advisor.syncBacklog", "syncBacklog is %q, want off, 1, 3 or 5", a.SyncBacklog)
	}
	if a.SyncTimeoutSeconds < 1 {
		return at("$.advisor.syncTimeoutSeconds", "must be at least 1, got %d", a.SyncTimeoutSeconds)
	}
	if a.Effort != "model" && a.Effort != "auto" {
		return at("$.advisor.effort", "must be model or auto, got %q", a.Effort)
	}
	if !ValidCadence(a.Cadence) {
		return at("$.advisor.cadence", "must be every, final or a whole number of steps ≥ 1, got %q", a.Cadence)
	}
	if a.MaxNotesPerUpdate < 1 {
		return at("$.advisor.maxNotesPerUpdate", "must be at least 1, got %d (blockers always go through; other notes over it wait for the next update)", a.MaxNotesPerUpdate)
	}
	if a.ImmuneTurns < 0 {
		return at("$.advisor.immuneTurns", "must not be negative, got %d (0 lets every concern interrupt)", a.ImmuneTurns)
	}
	if n := a.Periodic.EveryToolCalls; n < 0 || n > 1000 {
		return at("$.advisor.periodic.everyToolCalls", "must be 0 (off) to 1000, got %d", n)
	}
	if n := a.Periodic.EveryMinutes; n < 0 || n > 1440 {
		return at("$.advisor.periodic.everyMinutes", "must be 0 (off) to 1440, got %d", n)
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(a.Periodic.ReviewInstructions)); n > MaxReviewInstructions {
		return at("$.advisor.periodic.reviewInstructions", "must be at most %d characters, got %d", MaxReviewInstructions, n)
	}
	if n := a.Periodic.ReviewTimeoutSeconds; n < 1 || n > 3600 {
		return at("$.advisor.periodic.reviewTimeoutSeconds", "must be 1 to 3600, got %d", n)
	}
	if n := a.Consult.TimeoutSeconds; n < 1 || n > 3600 {
		return at("$.advisor.consult.timeoutSeconds", "must be 1 to 3600, got %d", n)
	}
	if n := a.Consult.MaxPerRun; n < 1 || n > 100 {
		return at("$.advisor.consult.maxPerRun", "must be 1 to 100, got %d", n)
	}
	if f := a.Fleet; f.URL != "" || f.Tenant != "default" {
		if !fleetName(f.Tenant) {
			return at("$.advisor.fleet.tenant", "%q: want 1 to 128 letters, digits, - and _", f.Tenant)
		}
		if f.Backlog < 1 {
			return at("$.advisor.fleet.backlog", "must be at least 1, got %d", f.Backlog)
		}
		if f.PublishTimeoutMs < 10 || f.PublishTimeoutMs > 60_000 {
			return at("$.advisor.fleet.publishTimeoutMs", "must be 10 to 60000, got %d", f.PublishTimeoutMs)
		}
		if (f.TLSCert == "") != (f.TLSKey == "") {
			return at("$.advisor.fleet.tlsCert", "tlsCert and tlsKey go together")
		}
	}
	for i, ref := range a.Promotion {
		if _, err := llm.ParseRef(ref); err != nil {
			return at(fmt.Sprintf("$.advisor.promotion[%d]", i), "%v; want provider/model[:thinking]", err)
		}
	}
	if a.Mode == ModePeriodic && a.Periodic.EveryToolCalls == 0 && a.Periodic.EveryMinutes == 0 {
		key := "$.advisor.periodic"
		if line, _ := yamlfile.Locate(data, key); line == 0 {
			key = "$.advisor.mode"
		}
		return at(key, "the periodic mode needs everyToolCalls or everyMinutes above 0, or no review would run")
	}

	c := s.Compaction
	if c.ThresholdPercent > 99 {
		return at("$.compaction.thresholdPercent", "must be at most 99, got %d (0 picks it from the window)", c.ThresholdPercent)
	}
	if c.ReserveTokens < 0 {
		return at("$.compaction.reserveTokens", "must not be negative, got %d", c.ReserveTokens)
	}
	if c.KeepRecentTokens < 0 {
		return at("$.compaction.keepRecentTokens", "must not be negative, got %d", c.KeepRecentTokens)
	}

	t := s.Tools
	if t.Bash.TimeoutSeconds < 1 {
		return at("$.tools.bash.timeoutSeconds", "must be at least 1, got %d", t.Bash.TimeoutSeconds)
	}
	if t.Output.MaxLines < 1 {
		return at("$.tools.output.maxLines", "must be at least 1, got %d", t.Output.MaxLines)
	}
	if t.Output.MaxBytes < 1 {
		return at("$.tools.output.maxBytes", "must be at least 1, got %d", t.Output.MaxBytes)
	}
	if t.Approval != ApprovalAuto && t.Approval != ApprovalAsk {
		return at("$.tools.approval", "approval is %q, want auto (tools run unasked) or ask", t.Approval)
	}
	if t.LoopGuard < 0 || t.LoopGuard == 1 {
		return at("$.tools.loopGuard", "must be 0 (off) or at least 2, got %d", t.LoopGuard)
	}
	return nil
}

// fleetName reports whether s may be advisor.fleet.tenant: one NATS
// subject token that also names streams (internal/fleet.ValidName).
func fleetName(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ValidCadence reports whether s is a review cadence advisor.ParseCadence
// reads: "every", "final" or a whole number ≥ 1.
func ValidCadence(s string) bool {
	if s == "every" || s == "final" {
		return true
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 1
}
