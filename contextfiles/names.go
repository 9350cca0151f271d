package contextfiles

// Names are the file names [Discover] looks for, relative to a folder, in
// the order they are taken within one folder.
type Names struct {
	// User names are looked for in the agent folder.
	User []string
	// Project names are looked for in each project folder.
	Project []string
}

// AgentsNames are the names of the coding agent's instruction files:
// AGENTS.md in the agent folder and in each project folder.
func AgentsNames() Names {
	return Names{User: []string{"AGENTS.md"}, Project: []string{"AGENTS.md"}}
}

// WatchdogNames are the names of the advisor's instruction files:
// WATCHDOG.md in the agent folder, and in each project folder WATCHDOG.md
// then .vigil/WATCHDOG.md (the seed documents' order).
func WatchdogNames() Names {
	return Names{User: []string{"WATCHDOG.md"}, Project: []string{"WATCHDOG.md", ".vigil/WATCHDOG.md"}}
}
