package stats

import (
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// Version is the version of the JSON document a [Report] encodes to, as
// docs/stats.md describes it. Adding a field does not change it.
const Version = 1

// Role says which agent wrote a file: the main agent, a subagent or the
// advisor.
type Role string

// The roles, in the order reports list them.
const (
	RolePrimary  Role = "primary"
	RoleSubagent Role = "subagent"
	RoleAdvisor  Role = "advisor"
)

// Roles returns every role in report order.
func Roles() []Role { return []Role{RolePrimary, RoleSubagent, RoleAdvisor} }

// Tokens counts tokens as providers report them: Input is uncached input.
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// Total returns every token: input, cached or not, and output.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

func (t *Tokens) add(u Tokens) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
}

func tokensOf(u llm.Usage) Tokens {
	return Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
}

// Usage is what a set of turns used and cost.
type Usage struct {
	// Turns counts assistant messages: model replies.
	Turns  int    `json:"turns"`
	Tokens Tokens `json:"tokens"`
	// Cost is in US dollars, at the prices of [Options.Price].
	Cost float64 `json:"cost"`
	// Unpriced counts the turns of models without a price: their tokens
	// are counted, their cost is 0.
	Unpriced int `json:"unpriced"`
}

func (u *Usage) add(v Usage) {
	u.Turns += v.Turns
	u.Tokens.add(v.Tokens)
	u.Cost += v.Cost
	u.Unpriced += v.Unpriced
}

// Report is the result of a [Scan].
type Report struct {
	// Version is [Version].
	Version int `json:"version"`
	// Root is the sessions folder scanned.
	Root string `json:"root"`
	// Since, Project and Cwd are the filters the scan applied
	// ([Options]); zero when unset.
	Since   *time.Time `json:"since,omitempty"`
	Project string     `json:"project,omitempty"`
	Cwd     string     `json:"cwd,omitempty"`
	// Totals adds up every session reported.
	Totals Totals `json:"totals"`
	// Projects, by cost, then by folder.
	Projects []Project `json:"projects"`
	// Models, by cost, then by turns, then by reference.
	Models []Model `json:"models"`
	// Roles, primary, subagent, advisor; a role with no file is left out.
	Roles []RoleUsage `json:"roles"`
	// Sessions, by cost, then newest first.
	Sessions []Session `json:"sessions"`
	// Problems lists the files that could not be read whole.
	Problems []Problem `json:"problems"`
}

// Totals adds up a report.
type Totals struct {
	Sessions int `json:"sessions"`
	// Files counts the session files read: sessions, subagents' sessions
	// and advisor transcripts.
	Files   int `json:"files"`
	Prompts int `json:"prompts"`
	Usage
}

// Project adds up the sessions of one working folder.
type Project struct {
	// Cwd is the working folder, from the sessions' headers.
	Cwd      string `json:"cwd"`
	Sessions int    `json:"sessions"`
	Prompts  int    `json:"prompts"`
	Usage
}

// Model adds up the turns of one model, whatever the role.
type Model struct {
	// Model is the reference provider/model, without a thinking level
	// (the price does not depend on it); "" when the file named none.
	Model string `json:"model"`
	// Priced is false for a model the price list does not know.
	Priced bool `json:"priced"`
	Usage
}

// RoleUsage adds up the files of one role.
type RoleUsage struct {
	Role  Role `json:"role"`
	Files int  `json:"files"`
	Usage
}

// Session is one top-level session with everything it owns: its subagents'
// sessions and its advisor's transcripts. The embedded [Usage] is the
// whole: every role's turns, tokens and cost.
type Session struct {
	// ID is the session id; File its file; Cwd its working folder.
	ID   string `json:"id"`
	File string `json:"file"`
	Cwd  string `json:"cwd"`
	// Started is when the file was created.
	Started time.Time `json:"started"`
	// Missing is set when only the session's artifacts folder was found:
	// its file is gone, so ID comes from the folder's name.
	Missing bool `json:"missing,omitempty"`
	// Prompts counts the user's prompts ([Role] primary only).
	Prompts int `json:"prompts"`
	// Title is the first prompt's first line (cut at 120 characters);
	// "" when there is no prompt.
	Title string `json:"title,omitempty"`
	// Updated is the time of the session file's last entry; zero when it
	// has none.
	Updated time.Time `json:"updated,omitzero"`
	Usage
	// Primary is what the session's own file used.
	Primary Usage `json:"primary"`
	// Subagents and Advisors are the transcripts in its artifacts
	// folder, in file order.
	Subagents []Transcript `json:"subagents"`
	Advisors  []Transcript `json:"advisors"`
}

// Transcript is a subagent's session or an advisor's transcript, owned by
// a [Session].
type Transcript struct {
	ID   string `json:"id"`
	File string `json:"file"`
	Role Role   `json:"role"`
	// Parent is the id of the session it belongs to, from its header.
	Parent string `json:"parent"`
	// ReadOnly is set for advisor transcripts: vigil never resumes,
	// messages or stops an advisor through them.
	ReadOnly bool `json:"readOnly"`
	// Reviews counts the reviews an advisor was asked for (session
	// updates, and the periodic mode's review prompts); 0 for a subagent.
	Reviews int `json:"reviews"`
	// Consults counts the agent's questions to its advisor (the
	// ask_advisor tool), apart from Reviews.
	Consults int `json:"consults"`
	Usage
}

// Problem is a file that could not be read whole.
type Problem struct {
	File string `json:"file"`
	// Kind is "torn" (a partial last line: the entries before it count),
	// "bad-line" (an unreadable line: the entries before it count) or
	// "unreadable" (no usable header: nothing counts).
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// The kinds of [Problem].
const (
	ProblemTorn       = "torn"
	ProblemBadLine    = "bad-line"
	ProblemUnreadable = "unreadable"
)
