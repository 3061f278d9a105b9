package pricing

import (
	"fmt"
	"math"
)

// Dollars renders an amount for people, in cents, rounded half up from the
// millionth of a dollar: float noise below a millionth (a sum that is
// 0.10500000000000001 or 0.10499999999999999) never decides a cent. Every
// dollar figure runaway shows goes through it, so that a table and a
// sentence about the same spend never disagree.
func Dollars(usd float64) string {
	cents := math.Round(math.Round(usd*1e6) / 1e4)
	return fmt.Sprintf("$%.2f", cents/100)
}
