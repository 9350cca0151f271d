package advisor

import (
	"encoding/json"
	"strings"
	"testing"
)

// One advise call through the guard and the delivery policy, as the
// runtime takes it: a concrete concern while the agent streams is
// steered, escaped, and reported delivered; a note with no content is
// dropped with the guard's reason.
func TestAdviseCallThroughGuardAndRoute(t *testing.T) {
	var guard emissionGuard
	cooldown := interruptCooldown{Turns: DefaultImmuneTurns}
	var latch interruptLatch

	guard.NewUpdate()
	var got []string
	for _, args := range []string{
		`{"note":"The test reads a <nil> map & panics.","severity":"concern"}`,
		`{"note":"Stop."}`,
	} {
		advice, err := parseAdvice(json.RawMessage(args))
		if err != nil {
			t.Fatalf("parseAdvice(%s): %v", args, err)
		}
		d := guard.Check(advice)
		route := routeAdvice(advice.Severity, routeInput{
			UserStopped: latch.Stopped(),
			Streaming:   true,
			Immune:      cooldown.Active(),
		})
		if d.Deliver && route.Channel == channelSteer {
			cooldown.Steered()
			got = append(got, FormatAdvisories([]Advice{advice}))
		}
		got = append(got, adviseResult(d, route))
	}
	want := []string{
		"<advisory severity=\"concern\" guidance=\"weigh, don't blindly obey\">\nThe test reads a &lt;nil&gt; map &amp; panics.\n</advisory>",
		"Delivered: the agent is interrupted with your note before its next model call.",
		"Dropped, not delivered: the note has no concrete content; say what is wrong and what to do instead, or send nothing.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !cooldown.Active() {
		t.Error("the steered concern did not start the interrupt cooldown")
	}
}
