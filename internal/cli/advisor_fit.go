package cli

import (
	"fmt"

	"github.com/vigil-dev/vigil/advisor"
)

// warnPromptFit warns, where the user looks (stderr and the session),
// when an advisor's system prompt leaves no room in its model's window
// for the session it reviews ([advisor.PromptRoom]): such an advisor
// only compacts and re-primes, and never reviews. name is the roster
// advisor's name, "" for the single advisor.
func (a *app) warnPromptFit(name, system string, window int) {
	tokens := int64(len(system)) / 4
	ok, limit := advisor.PromptRoom(tokens, window)
	if ok {
		return
	}
	who := "advisor"
	if name != "" {
		who = "advisor " + name
	}
	a.supervisionWarning(fmt.Sprintf("%s: its system prompt (vigil's advisor prompt, the WATCHDOG.md files and the WATCHDOG.yml instructions) is about %d tokens, too large for its model's context window of %d tokens (at most about %d leave room for the session), so it cannot review the session", who, tokens, window, limit))
}
