package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// errNothingToCompact is returned by a compaction with nothing older than
// the recent context to summarise.
var errNothingToCompact = errors.New("nothing to compact")

// CompactionOptions say when the agent compacts its context and how much
// of it a compaction keeps. The zero value never compacts on its own; a
// Compact call still works and keeps [DefaultKeepRecentTokens].
type CompactionOptions struct {
	// Enabled turns threshold compaction on.
	Enabled bool
	// ThresholdTokens, when above 0, compacts once the context exceeds
	// that many tokens.
	ThresholdTokens int
	// ThresholdPercent, when above 0 (and no ThresholdTokens), compacts
	// once the context exceeds that percentage of the window.
	ThresholdPercent int
	// ReserveTokens is kept free for the reply when neither threshold is
	// set.
	ReserveTokens int
	// KeepRecentTokens is how much of the most recent context a
	// compaction keeps verbatim; 0 means [DefaultKeepRecentTokens].
	KeepRecentTokens int
}

// Threshold returns the context size in tokens above which a model with
// the given context window compacts, or 0 when compaction is off or the
// window is unknown. With no threshold set it is the window less the
// larger of 15% of it and ReserveTokens: 170,000 for a 200,000 window.
func (c CompactionOptions) Threshold(window int) int {
	if !c.Enabled || window <= 1 {
		return 0
	}
	switch {
	case c.ThresholdTokens > 0:
		return min(c.ThresholdTokens, window-1)
	case c.ThresholdPercent > 0:
		return window * min(c.ThresholdPercent, 99) / 100
	}
	return max(window-max(window*15/100, c.ReserveTokens), 1)
}

// Compact summarises the older part of the context now, as /compact does;
// instructions, if any, tell the summary what to focus on. It emits
// compaction_start, compaction_end and history_rewritten. It needs the
// agent idle ([ErrBusy]); Abort or cancelling ctx stops it.
func (a *Agent) Compact(ctx context.Context, instructions string) error {
	if err := a.acquire(); err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	a.mu.Lock()
	a.runCancel = cancel
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.runCancel = nil
		a.mu.Unlock()
		cancel(nil)
		a.release()
	}()
	if err := a.syncView(); err != nil {
		return fmt.Errorf("agent: compact: %w", err)
	}
	if err := a.compact(ctx, CompactManual, instructions); err != nil {
		return fmt.Errorf("agent: compact: %w", err)
	}
	return nil
}

// maybeCompact compacts before a request when the context has grown past
// the threshold. A compaction that fails is reported in compaction_end and
// the request goes ahead uncompacted; the error is returned so that the
// caller can tell an abort.
//
// After a failure it does not try again in the same turn, so a model that
// cannot summarise does not get asked before every step.
func (a *Agent) maybeCompact(ctx context.Context) error {
	limit := a.compaction.Threshold(a.window)
	if limit <= 0 || a.compactFailed || a.view.tokens() <= int64(limit) {
		return nil
	}
	err := a.compact(ctx, CompactThreshold, "")
	switch {
	case errors.Is(err, errNothingToCompact):
		return nil
	case err != nil && ctx.Err() == nil:
		a.compactFailed = true
	}
	return err
}

// compact summarises the view's older entries with the model, keeping the
// most recent ones worth about KeepRecentTokens, and appends a
// session.Compaction. The caller holds the busy token.
func (a *Agent) compact(ctx context.Context, reason, instructions string) error {
	forced := reason != CompactThreshold
	cut, ok := a.cutPoint(forced)
	if !ok {
		return errNothingToCompact
	}
	before := a.view.tokens()
	a.emit(a.event(Event{Type: EventCompactionStart, Reason: reason, TokensBefore: before}))
	fail := func(err error) error {
		a.emit(a.event(Event{Type: EventCompactionEnd, Reason: reason, TokensBefore: before, Err: err}))
		return err
	}
	old := a.view.entries[:cut]
	summary, err := a.summarize(ctx, old, instructions)
	if err != nil {
		return fail(err)
	}
	firstKept := ""
	if cut < len(a.view.entries) {
		firstKept = a.view.entries[cut].ID
	}
	e, err := a.sess.Append(&session.Compaction{Summary: summary, FirstKeptID: firstKept, TokensBefore: before})
	if e.ID == "" {
		return fail(fmt.Errorf("write compaction: %w", err))
	}
	if rerr := a.view.rebuild(a.sess, a.fixedTokens); rerr != nil {
		return fail(errors.Join(err, rerr))
	}
	a.publishTokens()
	a.emit(a.event(Event{Type: EventCompactionEnd, Reason: reason, Entry: &e, TokensBefore: before, TokensAfter: a.view.tokens()}))
	a.emit(a.event(Event{Type: EventHistoryRewritten, Reason: RewriteCompaction}))
	return err
}

// cutPoint returns the index in the view of the first entry to keep. The
// entries from there on are worth about KeepRecentTokens, and the first
// is not a tool result (its call would be summarised away). ok is false
// when there is nothing before it to summarise; a forced compaction then
// keeps less, down to nothing.
func (a *Agent) cutPoint(forced bool) (cut int, ok bool) {
	entries := a.view.entries
	keep := int64(a.compaction.KeepRecentTokens)
	if keep <= 0 {
		keep = DefaultKeepRecentTokens
	}
	i, kept := len(entries), int64(0)
	for i > 0 && kept < keep {
		i--
		kept += estimateEntry(entries[i])
	}
	for i < len(entries) && !startsContext(entries[i]) {
		i++
	}
	if summarisable(entries[:i]) {
		return i, true
	}
	if !forced {
		return 0, false
	}
	// Keep less: the last place a context may start, else nothing.
	for j := len(entries) - 1; j > 0; j-- {
		if startsContext(entries[j]) && summarisable(entries[:j]) {
			return j, true
		}
	}
	return len(entries), summarisable(entries)
}

// summarisable reports whether entries hold something besides an earlier
// compaction.
func summarisable(entries []session.Entry) bool {
	for _, e := range entries {
		if _, ok := e.Body.(*session.Compaction); !ok {
			return true
		}
	}
	return false
}

// startsContext reports whether the kept part of a compacted context may
// begin with e: anything but a compaction or a message of tool results.
func startsContext(e session.Entry) bool {
	switch b := e.Body.(type) {
	case *session.Compaction:
		return false
	case *session.Message:
		for _, bl := range b.Message.Content {
			if bl.Type == llm.BlockToolResult {
				return false
			}
		}
	}
	return true
}

// summarize asks the model for a summary of entries.
func (a *Agent) summarize(ctx context.Context, entries []session.Entry, instructions string) (string, error) {
	req := llm.Request{
		System:    summarySystem,
		Messages:  []llm.Message{llm.UserText(summaryPrompt(entries, instructions))},
		MaxTokens: a.maxTokens,
		Thinking:  llm.ThinkingOff,
	}
	resp, err := llm.Accumulate(a.model.Stream(ctx, req))
	if resp != nil {
		a.addUsage(resp.Usage)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		return "", fmt.Errorf("summary request: %w", err)
	}
	text := resp.Message.Text()
	if text == "" {
		return "", errors.New("summary request: the model returned no text")
	}
	return text, nil
}
