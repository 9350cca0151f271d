package anthropic

import (
	"context"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
)

// BenchmarkRawSDK and BenchmarkAdapter stream one long reply of 2000 text
// deltas from fakellm, through the SDK alone and through the adapter. Both
// are dominated by HTTP and the SDK's decoding, so BenchmarkTranslate
// measures the adapter's own layer alone, on decoded events.

const benchChunk = 4

var benchText = strings.Repeat("abcd", 2000)

func benchServer(b *testing.B) *fakellm.Server {
	b.Helper()
	return fakellm.StartTest(b, fakellm.MustParse(b, fmt.Sprintf(`
rules:
  - repeat: true
    steps:
      - text: %q
        chunk: %d
`, benchText, benchChunk)))
}

func BenchmarkRawSDK(b *testing.B) {
	srv := benchServer(b)
	client := sdk.NewClient(option.WithoutEnvironmentDefaults(), option.WithBaseURL(srv.URL()),
		option.WithAPIKey("sk-bench"), option.WithMaxRetries(0))
	params := sdk.MessageNewParams{
		Model:     "claude-bench",
		MaxTokens: 8192,
		Messages:  []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("go"))},
	}
	var events, textBytes int
	for b.Loop() {
		stream := client.Messages.NewStreaming(context.Background(), params)
		for stream.Next() {
			ev := stream.Current()
			events++
			if ev.Type == "content_block_delta" {
				textBytes += len(ev.Delta.Text)
			}
		}
		if err := stream.Err(); err != nil {
			b.Fatal(err)
		}
		stream.Close()
	}
	if textBytes != len(benchText)*b.N {
		b.Fatalf("read %d text bytes, want %d", textBytes, len(benchText)*b.N)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

func BenchmarkAdapter(b *testing.B) {
	srv := benchServer(b)
	m, err := New(Config{BaseURL: srv.URL(), APIKey: "sk-bench", Model: "claude-bench"})
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Messages: []llm.Message{llm.UserText("go")}}
	var events, textBytes int
	for b.Loop() {
		for ev, err := range m.Stream(context.Background(), req) {
			if err != nil {
				b.Fatal(err)
			}
			events++
			textBytes += len(ev.Text)
		}
	}
	if textBytes != len(benchText)*b.N {
		b.Fatalf("read %d text bytes, want %d", textBytes, len(benchText)*b.N)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

func BenchmarkTranslate(b *testing.B) {
	raw := []string{
		msgStart,
		blockStart(0, `{"type":"text","text":""}`),
	}
	for range len(benchText) / benchChunk {
		raw = append(raw, blockDelta(0, `{"type":"text_delta","text":"abcd"}`))
	}
	raw = append(raw, blockStop(0), msgDelta("end_turn", `{"output_tokens":2000}`), msgStop)
	events := make([]sdk.MessageStreamEventUnion, len(raw))
	for i, r := range raw {
		if err := events[i].UnmarshalJSON([]byte(r)); err != nil {
			b.Fatal(err)
		}
	}
	var out int
	for b.Loop() {
		var tr translator
		for i := range events {
			evs, _, err := tr.translate(&events[i])
			if err != nil {
				b.Fatal(err)
			}
			out += len(evs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(out), "ns/event")
}
