// Package config loads vigil's settings: defaults, overlaid by the user's
// file, overlaid by the project's.
//
// # Files
//
// The user file is config.yml in the agent folder (~/.vigil/agent, moved by
// VIGIL_AGENT_DIR; see [UserFile]); the project file is .vigil/config.yml at
// the project root ([ProjectFile]). The caller finds both folders and passes
// them in [Options]: this package reads no environment variable and no
// working folder. Either file may be missing. docs/config.md lists every
// key with its default.
//
// # Precedence
//
// [Load] starts from [Default], then overlays the user file, then the
// project file. A key set in a later file wins; a key absent from it, or set
// to null, keeps the value below. Groups of settings (advisor, compaction,
// tools, and the groups inside them) merge key by key, and so does
// modelRoles, role by role. A list, should a setting ever take one,
// replaces the list below it whole.
//
// # Errors
//
// Files are decoded strictly: an unknown key, a value of the wrong type, a
// model reference that does not parse (with [llm.ParseRef]) and a value out
// of range are all errors of the form
//
//	/home/me/.vigil/agent/config.yml:7:16: advisor.immuneTurns: must not be negative, got -1
//
// that name the file, the line, the column and the key. Loading stops at the
// first one.
//
// # Writing
//
// [Set] changes one key in a file, for /advisor on|off and the like, and
// leaves every other byte of the file as it was, comments included. It edits
// the text, using go-yaml's syntax tree only to find the place, and checks
// that the result decodes to the old settings with only that key changed.
// Files whose layout defeats a text edit (flow mappings such as {a: 1},
// values over several lines) are edited through the syntax tree instead,
// which keeps comments but evens out spacing; a file neither way can edit
// safely (anchors and aliases) is left alone with an error.
//
// Settings are plain values: a [Settings] holds no file handle, lock or
// cache, and nothing in the package is global. Callers that want live
// changes call [Load] again.
package config
