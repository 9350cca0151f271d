package openai

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
)

// The benchmarks stream one long reply, about 2000 text deltas, from
// fakellm: BenchmarkRawSDK reads it with the SDK alone, BenchmarkAdapter
// through Stream. The difference per event is this package's overhead.

const benchDeltas = 2000

func benchServer(b *testing.B) *fakellm.Server {
	b.Helper()
	text := strings.Repeat("abcd", benchDeltas)
	return fakellm.StartTest(b, fakellm.MustParse(b, fmt.Sprintf(`
rules:
  - repeat: true
    steps:
      - text: %q
        chunk: 4
`, text)))
}

func benchOptions(srv *fakellm.Server) []option.RequestOption {
	return []option.RequestOption{
		option.WithBaseURL(srv.URL() + "/v1/"),
		option.WithAPIKey("test"),
		option.WithMaxRetries(0),
	}
}

func reportPerEvent(b *testing.B, events int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

func BenchmarkRawSDK(b *testing.B) {
	b.Run("Chat", func(b *testing.B) {
		srv := benchServer(b)
		chat := openai.NewChatCompletionService(benchOptions(srv)...)
		params := openai.ChatCompletionNewParams{
			Model:         "bench",
			Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("go")},
			StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: param.NewOpt(true)},
		}
		events := 0
		for b.Loop() {
			stream := chat.NewStreaming(context.Background(), params)
			var n int
			for stream.Next() {
				c := stream.Current()
				if len(c.Choices) > 0 {
					n += len(c.Choices[0].Delta.Content)
				}
				events++
			}
			if err := stream.Err(); err != nil {
				b.Fatal(err)
			}
			if n != 4*benchDeltas {
				b.Fatalf("read %d bytes of text", n)
			}
		}
		reportPerEvent(b, events)
	})
	b.Run("Responses", func(b *testing.B) {
		srv := benchServer(b)
		svc := responses.NewResponseService(benchOptions(srv)...)
		params := responses.ResponseNewParams{
			Model: "bench",
			Input: responses.ResponseNewParamsInputUnion{OfString: param.NewOpt("go")},
			Store: param.NewOpt(false),
		}
		events := 0
		for b.Loop() {
			stream := svc.NewStreaming(context.Background(), params)
			var n int
			for stream.Next() {
				n += len(stream.Current().Delta)
				events++
			}
			if err := stream.Err(); err != nil {
				b.Fatal(err)
			}
			if n != 4*benchDeltas {
				b.Fatalf("read %d bytes of text", n)
			}
		}
		reportPerEvent(b, events)
	})
}

func BenchmarkAdapter(b *testing.B) {
	for _, api := range []llm.API{llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		name := "Chat"
		if api == llm.APIOpenAIResponses {
			name = "Responses"
		}
		b.Run(name, func(b *testing.B) {
			srv := benchServer(b)
			m, err := New(Config{API: api, BaseURL: srv.URL() + "/v1", APIKey: "test", Model: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			req := llm.Request{Messages: []llm.Message{llm.UserText("go")}}
			events := 0
			for b.Loop() {
				var n int
				for ev, err := range m.Stream(context.Background(), req) {
					if err != nil {
						b.Fatal(err)
					}
					n += len(ev.Text)
					events++
				}
				if n != 4*benchDeltas {
					b.Fatalf("read %d bytes of text", n)
				}
			}
			reportPerEvent(b, events)
		})
	}
}

// BenchmarkLayer measures the adapter's own work per event with the
// network and the SDK's decoding taken out: the chunks are decoded once,
// then fed to the translation step.
func BenchmarkLayer(b *testing.B) {
	b.Run("Chat", func(b *testing.B) {
		chunks := make([]openai.ChatCompletionChunk, benchDeltas)
		for i := range chunks {
			if err := chunks[i].UnmarshalJSON([]byte(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"abcd"},"finish_reason":null}]}`)); err != nil {
				b.Fatal(err)
			}
		}
		events := 0
		yield := func(llm.Event, error) bool { events++; return true }
		for b.Loop() {
			s := chatStream{yield: yield, text: -1, thinking: -1}
			for i := range chunks {
				s.chunk(&chunks[i])
			}
		}
		reportPerEvent(b, events)
	})
	b.Run("Responses", func(b *testing.B) {
		evs := make([]responses.ResponseStreamEventUnion, benchDeltas)
		for i := range evs {
			if err := evs[i].UnmarshalJSON([]byte(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"abcd","sequence_number":1}`)); err != nil {
				b.Fatal(err)
			}
		}
		events := 0
		yield := func(llm.Event, error) bool { events++; return true }
		for b.Loop() {
			s := responsesStream{yield: yield}
			for i := range evs {
				s.event(&evs[i])
			}
		}
		reportPerEvent(b, events)
	})
}
