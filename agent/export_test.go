package agent

// For the external tests: the corpus of hostile strings and the tests'
// own check for a live advisory tag.
var (
	LoadCorpus     = loadCorpus
	HasLiveTag     = hasLiveTag
	LiveTagContext = liveTagContext
)

// InjectionCase is a case of the corpus.
type InjectionCase = injectionCase

// EscapedNotice is the line that follows escaped text.
const EscapedNotice = escapedNotice
