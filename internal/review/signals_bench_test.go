package review

import (
	"context"
	"os"
	"testing"
)

// BenchmarkReviewThroughputSignals is BenchmarkReviewThroughput's 32 MB
// file reviewed with the signals kept (vigil review --json or --signals):
// what looking for them costs on top.
func BenchmarkReviewThroughputSignals(b *testing.B) {
	path := benchFile(b, 32)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	var res *Result
	for b.Loop() {
		res, err = File(context.Background(), path, Options{Signals: true})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Signals()), "signals")
}
