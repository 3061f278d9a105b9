package pricing

import "testing"

func TestDollarsRoundsHalfUpFromTheMillionth(t *testing.T) {
	for _, tt := range []struct {
		usd  float64
		want string
	}{
		{0, "$0.00"},
		{0.105, "$0.11"},
		{0.021 * 5, "$0.11"}, // 0.10500000000000001
		{0.10499999999999999, "$0.11"},
		{0.104999, "$0.10"},
		{1.005, "$1.01"},
		{1.0049994, "$1.00"},
		{20, "$20.00"},
		{1234.5, "$1234.50"},
	} {
		if got := Dollars(tt.usd); got != tt.want {
			t.Errorf("Dollars(%v) = %s, want %s", tt.usd, got, tt.want)
		}
	}
}

// The same spend reached through different sums of float prices shows the
// same cents.
func TestDollarsSameForSameSpend(t *testing.T) {
	for n := 1; n < 2000; n++ {
		c := float64(n) * 3 / 1e6
		sum := 0.0
		for k := 1; k <= 12; k++ {
			sum += c
			if a, b := Dollars(sum), Dollars(float64(n*k)*3/1e6); a != b {
				t.Fatalf("%d responses of %d tokens: summed %s, at once %s", k, n, a, b)
			}
		}
	}
}
