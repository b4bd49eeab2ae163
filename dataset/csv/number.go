package csv

import "strings"

// float32pow10 holds the powers of ten that a float32 represents exactly.
var float32pow10 = [...]float32{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// fastFloat32 parses the plain decimals that make up most numeric CSV
// fields ("5.1", "-0.25", "3e-2") with at most one rounding, as strconv
// does before it tries anything slower: a field of the form
// [+-]digits[.digits][e[+-]digits] whose digits, the point ignored, are an
// integer m below 2^23 and whose value is m x 10^k with |k| <= 10. Then m
// and 10^|k| are exact float32s and one multiplication or division rounds
// correctly, so the result is strconv.ParseFloat(s, 32)'s, the value
// correctly rounded. Any other field (spaces, more digits, inf, hex, an
// error) gives ok false, and the caller asks strconv.
func fastFloat32(s string) (f float32, ok bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var m uint64
	digits, exp := 0, 0
	for ; i < len(s) && s[i]-'0' <= 9; i++ {
		m = m*10 + uint64(s[i]-'0')
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i]-'0' <= 9; i++ {
			m = m*10 + uint64(s[i]-'0')
			digits++
			exp--
		}
	}
	// 18 digits keep m from overflowing; the bound on m is checked below.
	if digits == 0 || digits > 18 {
		return 0, false
	}
	if i < len(s) && s[i]|0x20 == 'e' {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		e, edigits := 0, 0
		for ; i < len(s) && s[i]-'0' <= 9 && edigits < 3; i++ {
			e = e*10 + int(s[i]-'0')
			edigits++
		}
		if edigits == 0 {
			return 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(s) || m >= 1<<23 {
		return 0, false
	}
	f = float32(m)
	if neg {
		f = -f
	}
	switch {
	case exp == 0:
		return f, true
	case exp > 0 && exp < len(float32pow10):
		return f * float32pow10[exp], true
	case exp < 0 && -exp < len(float32pow10):
		return f / float32pow10[-exp], true
	}
	return 0, false
}

// trimSpace is strings.TrimSpace, but returns at once a field that starts
// and ends with a printable ASCII byte, as most do.
func trimSpace(s string) string {
	if n := len(s); n > 0 && s[0]-'!' < 0x7f-'!' && s[n-1]-'!' < 0x7f-'!' {
		return s
	}
	return strings.TrimSpace(s)
}
