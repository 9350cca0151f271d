package history

import "slices"

// Options say what a rendering shows. The zero value shows the least: no
// thinking, no tool intent, role headings instead of watched-role labels,
// primary context as one-liners, no tool output, no redaction.
type Options struct {
	// Title, when set, opens the rendering with "# Title".
	Title string
	// Thinking shows the primary's thinking blocks, in full.
	Thinking bool
	// ToolIntent adds to each tool line the call's other short arguments
	// (after the primary one) and, before it, a "// intent" line when the
	// call carries an "i" argument.
	ToolIntent bool
	// WatchedRoles labels messages "**user**:" and "**agent**:" (one label
	// for consecutive messages of one role) instead of "## user" and
	// "## assistant" headings.
	WatchedRoles bool
	// ExpandPrimaryContext shows custom entries of the primary-context
	// types, and Context, in full inside <primary-context> elements.
	ExpandPrimaryContext bool
	// PrimaryContextTypes are the custom types that are primary context;
	// nil means plan mode's "plan-mode-context" and "plan-mode-reference".
	// Context that changes on every turn (a goal's live budget) does not
	// belong here: it would never dedupe.
	PrimaryContextTypes []string
	// MaxToolOutput is how many bytes of each tool result's text are
	// shown under its tool line; longer output keeps its head and tail
	// around a marker saying what was cut. 0 shows none (the status line
	// alone, as omp does).
	MaxToolOutput int
	// MaxEditLines is how many lines of the change an edit, write or
	// patch call makes are shown under its tool line, as a diff (see the
	// package documentation); a longer change keeps its head and tail
	// around a marker saying what was cut, and a change is also cut at
	// MaxEditLines × [MaxEditLineBytes] bytes. 0 shows no change: the
	// call's text arguments are summarised on the tool line by their size.
	MaxEditLines int
	// Context is primary context the caller supplies for this rendering
	// (the primary's context files or system prompt, by kind). With
	// ExpandPrimaryContext it is shown before the entries, like a
	// primary-context custom entry of that kind; [Renderer.Update] shows
	// a kind whose text did not change as unchanged.
	Context []PrimaryContext
	// Redactor hides secrets in everything shown; nil hides nothing.
	Redactor *Redactor
}

// PrimaryContext is a piece of the primary agent's standing context, such
// as an AGENTS.md file or its system prompt.
type PrimaryContext struct {
	// Kind names it, as the kind attribute shows it; a later piece of the
	// same kind replaces it.
	Kind string
	// Text is its content.
	Text string
}

// defaultPrimaryContextTypes are the primary-context types when
// Options.PrimaryContextTypes is nil.
var defaultPrimaryContextTypes = []string{"plan-mode-context", "plan-mode-reference"}

// DefaultMaxToolOutput is the tool output the advisor is shown per call:
// enough for a failing test's message and stack, not a whole file (the
// advisor can read files itself).
const DefaultMaxToolOutput = 2000

// DefaultMaxEditLines is the lines of each change the advisor is shown, as
// omp caps a diff: enough for any edit made with intent, while a file
// rewritten whole keeps its head and tail.
const DefaultMaxEditLines = 300

// MaxEditLineBytes is the bytes a line of a change may take on average: a
// change is cut at Options.MaxEditLines times this many bytes, so that a
// minified file or a long generated line cannot fill the advisor's
// context.
const MaxEditLineBytes = 100

// AdvisorOptions returns the options the advisor reads deltas with:
// thinking, tool intent, watched roles and expanded primary context, as
// omp renders them, plus [DefaultMaxToolOutput] bytes of each tool result,
// each edit's change as a diff of up to [DefaultMaxEditLines] lines, and
// the redactor r.
func AdvisorOptions(r *Redactor) Options {
	return Options{
		Thinking:             true,
		ToolIntent:           true,
		WatchedRoles:         true,
		ExpandPrimaryContext: true,
		MaxToolOutput:        DefaultMaxToolOutput,
		MaxEditLines:         DefaultMaxEditLines,
		Redactor:             r,
	}
}

func (o *Options) primaryContext(customType string) bool {
	types := o.PrimaryContextTypes
	if types == nil {
		types = defaultPrimaryContextTypes
	}
	return slices.Contains(types, customType)
}
