package transcript_test

import (
	"fmt"
	"os"

	"github.com/vigil-dev/vigil/transcript"
)

// Any agent's recorded session (here pi's, recorded against fakellm), read
// into numbered steps: each assistant message with the tool results that
// answer it.
func Example_steps() {
	f, err := os.Open("testdata/pi/recording.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	r, err := transcript.NewReader(f, f.Name())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("format:", r.Format())
	var st transcript.Stepper
	show := func(s transcript.Step) {
		fmt.Printf("step %d: %d calls", s.N, len(s.Calls()))
		for _, c := range s.Calls() {
			res, _ := s.Result(c.ID)
			fmt.Printf(", %s (error %v)", c.Name, res.IsError)
		}
		fmt.Println()
	}
	for it, err := range r.Items() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if it.Run != nil {
			continue // a run starts; a file may hold several
		}
		for _, s := range st.Add(it.Entry) {
			show(s)
		}
	}
	if s, ok := st.Flush(); ok {
		show(s)
	}
	// Output:
	// format: pi
	// step 1: 1 calls, bash (error false)
	// step 2: 2 calls, bash (error true), bash (error false)
	// step 3: 0 calls
	// step 4: 1 calls, bash (error true)
	// step 5: 0 calls
}
