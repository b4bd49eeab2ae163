package csv

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// checkFastFloat32 fails t unless fastFloat32(s) declines s or gives the
// bits of strconv.ParseFloat(s, 32), and unless it takes every field that
// strconv refuses to the fallback.
func checkFastFloat32(t *testing.T, s string) {
	t.Helper()
	got, ok := fastFloat32(s)
	want, err := strconv.ParseFloat(s, 32)
	switch {
	case ok && err != nil:
		t.Fatalf("fastFloat32(%q) = %v, strconv refuses it: %v", s, got, err)
	case ok && math.Float32bits(got) != math.Float32bits(float32(want)):
		t.Fatalf("fastFloat32(%q) = %v (%#x), strconv %v (%#x)", s, got, math.Float32bits(got), float32(want), math.Float32bits(float32(want)))
	}
}

// TestFastFloat32 checks the fast path against strconv on the edges of
// what it takes (signs, points, exponents, the bounds on digits, mantissa
// and exponent) and on random short decimals, and that it takes the
// common fields.
func TestFastFloat32(t *testing.T) {
	for _, s := range []string{
		"", "+", "-", ".", "+.", "e1", ".e1", "1e", "1e+", "1e-", "1.2.3", "1..2", "--1", "+-1", "1-", " 1", "1 ", "1_0",
		"0x10", "0x1p-2", "inf", "-Inf", "nan", "1e1000", "1e0001", "１", "1\x00",
		"0", "-0", "+0", "0.0", "-0.0", ".5", "5.", "-.5", "+5.", "00001.5000", "8388607", "8388608", "-8388607",
		"838860.7", "8.388608", "1e10", "1e11", "1e-10", "1e-11", "123e-12", "0.0000000001", "0.00000000001",
		"3.4028235e38", "1e38", "1.5E3", "1.5e+3", "1.5e-3", "123456789012345678", "1234567890123456789",
		"0.000000000000000001", "4.1", "2.675", "0.1", "16777217", "1677721.7",
	} {
		checkFastFloat32(t, s)
	}
	for _, s := range []string{"5.1", "-0.25", "3e-2", "0", "150", "1.4E+3"} {
		if _, ok := fastFloat32(s); !ok {
			t.Errorf("fastFloat32(%q) leaves a plain decimal to strconv", s)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteByte("+-"[rng.IntN(2)])
		}
		for range rng.IntN(9) {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
		if rng.IntN(2) == 0 {
			b.WriteByte('.')
			for range rng.IntN(9) {
				b.WriteByte(byte('0' + rng.IntN(10)))
			}
		}
		if rng.IntN(4) == 0 {
			b.WriteString("e" + strconv.Itoa(rng.IntN(25)-12))
		}
		checkFastFloat32(t, b.String())
	}
}

// FuzzFastFloat32 checks fastFloat32 against strconv on any field.
func FuzzFastFloat32(f *testing.F) {
	for _, s := range []string{"5.1", "-0.25", "3e-2", "8388607", "1e-10", ".5", "1e", "inf"} {
		f.Add(s)
	}
	f.Fuzz(checkFastFloat32)
}

// TestTrimSpace checks the shortcut of trimSpace against strings.TrimSpace.
func TestTrimSpace(t *testing.T) {
	for _, s := range []string{"", " ", "a", " a", "a ", "\ta\n", "\u00a0a\u0085", "~", "\x7f", "a\x01", "é", "Iris-setosa"} {
		if got, want := trimSpace(s), strings.TrimSpace(s); got != want {
			t.Errorf("trimSpace(%q) = %q, want %q", s, got, want)
		}
	}
}
