package transcript

import "testing"

// TestFollowPiRecordings: a pi or omp session file followed in pieces,
// told its format or detecting it, gives what the whole-file reader reads
// (the sidecar of an attached pi or omp follows these files; omp's
// format is pi's, told apart by what it holds).
func TestFollowPiRecordings(t *testing.T) {
	for _, rec := range []followRecording{
		{"testdata/pi/recording.jsonl", FormatPi},
		{"testdata/omp/recording.jsonl", FormatPi},
	} {
		t.Run(rec.path, func(t *testing.T) {
			data := followData(t, rec.path)
			want := readWhole(data, rec.format)
			if len(want.steps) == 0 {
				t.Fatal("the recording has no steps")
			}
			got, fl := followPieces(t, data, rec.format, lineCuts(data), nil)
			checkSame(t, got, fl, want)
			for seed := range uint64(3) {
				got, fl := followPieces(t, data, rec.format, randomCuts(data, 60, seed), nil)
				checkSame(t, got, fl, want)
			}
			got, fl = followPieces(t, data, "", randomCuts(data, 20, 9), nil)
			checkSame(t, got, fl, want)
		})
	}
}
