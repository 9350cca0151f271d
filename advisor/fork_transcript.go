package advisor

import (
	"context"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

// DefaultForkTranscript is the rendered transcript [ForkTranscript]
// sends at most by default, in bytes (about 50,000 tokens).
const DefaultForkTranscript = 200_000

// forkTranscriptSystem is the system prompt of a [ForkTranscript]: the
// model answers as the agent whose work the transcript shows.
const forkTranscriptSystem = "You are the coding agent whose work is shown below, as a transcript. " +
	"Answer the question that follows it about your own work, as yourself. Do not call tools: none will run."

// ForkTranscript is a fork for a host that has the agent's transcript
// but not its requests (a sidecar, a fleet worker): it asks model, under
// a system prompt that has it answer as the agent whose work the
// transcript shows, one user message of the rendered transcript (its
// beginning cut at a line so that at most limit bytes remain; limit <= 0 means
// [DefaultForkTranscript]) followed by prompt. at is the ID of the last
// entry rendered. No prompt cache is shared with the agent. The caller
// redacts what it renders and the prompt.
func ForkTranscript(ctx context.Context, model llm.Model, ref llm.Ref, transcript, prompt, at string, limit int) (ForkReply, error) {
	if limit <= 0 {
		limit = DefaultForkTranscript
	}
	if len(transcript) > limit {
		cut := len(transcript) - limit
		if i := strings.IndexByte(transcript[cut:], '\n'); i >= 0 {
			cut += i + 1
		}
		transcript = fmt.Sprintf("[… the first %d bytes of the transcript cut …]\n", cut) + transcript[cut:]
	}
	req := llm.Request{
		System: forkTranscriptSystem,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			{Type: llm.BlockText, Text: transcript},
			{Type: llm.BlockText, Text: prompt},
		}}},
	}
	resp, err := llm.Accumulate(model.Stream(ctx, req))
	if err != nil {
		return ForkReply{}, fmt.Errorf("fork: %w", err)
	}
	return ForkReply{Reply: resp.Message, Usage: resp.Usage, Model: ref, At: at}, nil
}
