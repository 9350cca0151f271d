package advisor_test

import (
	"encoding/json"
	"fmt"

	"github.com/vigil-dev/vigil/advisor"
)

// One advise call through the guard and the delivery policy.
func Example() {
	var guard advisor.Guard
	immunity := advisor.Immunity{Turns: advisor.DefaultImmuneTurns}
	var latch advisor.Latch

	guard.NewUpdate()
	for _, args := range []string{
		`{"note":"The test reads a <nil> map & panics.","severity":"concern"}`,
		`{"note":"Stop."}`,
	} {
		advice, err := advisor.ParseAdvice(json.RawMessage(args))
		if err != nil {
			fmt.Println(err)
			continue
		}
		d := guard.Check(advice)
		route := advisor.RouteAdvice(advice.Severity, advisor.RouteInput{
			UserStopped: latch.Stopped(),
			Streaming:   true,
			Immune:      immunity.Active(),
		})
		if d.Deliver && route.Channel == advisor.ChannelSteer {
			immunity.Steered()
			fmt.Println(advisor.FormatAdvisories([]advisor.Advice{advice}))
		}
		fmt.Println(advisor.AdviseResult(d, route))
	}
	// Output:
	// <advisory severity="concern" guidance="weigh, don't blindly obey">
	// The test reads a &lt;nil&gt; map &amp; panics.
	// </advisory>
	// Delivered: the agent is interrupted with your note before its next model call.
	// Dropped, not delivered: the note has no concrete content; say what is wrong and what to do instead, or send nothing.
}
