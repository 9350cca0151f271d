package supervise

import (
	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/replay"
	"github.com/vigil-dev/vigil/llm"
)

// Replayer is the advisor of vigil eval --reviewer model or gate: the
// runtime replayed over recorded sessions step by step, on the advisor
// model resolved as a live session's is ([ErrNoModel] when none is
// named), secrets redacted as there, and its price. newDetector, when
// set, gates the model: it reviews only where a detector fires.
func (c *Config) Replayer(newDetector func() advisor.Detector) (*replay.Reviewer, llm.Price, error) {
	res, err := c.Resolve(c.Settings)
	if err != nil {
		return nil, llm.Price{}, err
	}
	m, err := res.Open()
	if err != nil {
		return nil, llm.Price{}, err
	}
	opts := replay.Options{Model: m, Redactor: c.Redactor, ContextWindow: res.Info.ContextWindow}
	if newDetector != nil {
		opts.Gate, opts.NewDetector = true, newDetector
	}
	return &replay.Reviewer{Options: opts}, res.Info.Price, nil
}
