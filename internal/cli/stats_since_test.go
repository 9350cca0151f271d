package cli

import (
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 10, 15, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "", want: time.Time{}},
		{in: "2026-11-05", want: time.Date(2026, 11, 5, 0, 0, 0, 0, time.Local)},
		{in: "2026-11-05T10:00:00Z", want: time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)},
		{in: "7d", want: now.AddDate(0, 0, -7)},
		{in: "12h", want: now.Add(-12 * time.Hour)},
		{in: "last tuesday", bad: true},
		{in: "-3h", bad: true},
		{in: "-3d", bad: true},
	} {
		got, err := parseSince(tc.in, now)
		if tc.bad {
			if err == nil {
				t.Errorf("parseSince(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestTokens64(t *testing.T) {
	for n, want := range map[int64]string{0: "-", 950: "950", 9999: "9999", 12_345: "12.3K", 4_567_890: "4.57M", 2_000_000_000: "2.00B"} {
		if got := tokens64(n); got != want {
			t.Errorf("tokens64(%d) = %q, want %q", n, got, want)
		}
	}
}
