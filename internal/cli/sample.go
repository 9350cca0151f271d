package cli

import _ "embed"

// sampleName is how reports name the bundled sample session; the same
// file is in the source tree at internal/cli/sample.
const sampleName = "sample/offcourse.jsonl"

// sampleSession is a short recorded session of vigil's own agent that
// goes off course, for `vigil review --sample` (see sample/README.md).
//
//go:embed sample/offcourse.jsonl
var sampleSession []byte
