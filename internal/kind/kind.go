// Package kind derives the kind of a reader's state (source.State.Kind)
// from the configuration it was built with, so that every parameter that
// changes the stream is in the kind without a line written for it, and a
// checkpoint taken with other parameters is refused naming the parameter.
package kind

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Of returns name(k=v,k=v,...) for the fields of the struct cfg, in their
// order, leaving out the fields named in skip (those that do not change the
// stream: paths, whose content the data digest covers, thread counts,
// limits). Nested structs print with their field names; a slice or array
// of more than 8 elements prints as its length and a digest of its values,
// to keep the kind short; a pointer, interface, function, map or channel
// prints as its dynamic type, or nil.
func Of(name string, cfg any, skip ...string) string {
	v := reflect.ValueOf(cfg)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	first := true
	for i := range t.NumField() {
		f := t.Field(i)
		if slices.Contains(skip, f.Name) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strings.ToLower(f.Name))
		b.WriteByte('=')
		value(&b, v.Field(i))
	}
	b.WriteByte(')')
	return b.String()
}

func value(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Func, reflect.Map, reflect.Chan:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		if v.Kind() == reflect.Interface {
			v = v.Elem()
		}
		b.WriteString(v.Type().String())
	case reflect.Struct:
		b.WriteByte('{')
		for i := range v.NumField() {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.ToLower(v.Type().Field(i).Name))
			b.WriteByte(':')
			value(b, v.Field(i))
		}
		b.WriteByte('}')
	case reflect.Slice, reflect.Array:
		if v.Len() > 8 {
			h := sha256.New()
			for i := range v.Len() {
				fmt.Fprint(h, v.Index(i), ";")
			}
			fmt.Fprintf(b, "[%d values %s]", v.Len(), hex.EncodeToString(h.Sum(nil))[:8])
			return
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(' ')
			}
			value(b, v.Index(i))
		}
		b.WriteByte(']')
	default:
		fmt.Fprint(b, v)
	}
}

// Diff returns the parameters in which two kinds made by Of differ, as
// "k: a here, b there" items, or "" when they are not two kinds of one
// name with the same parameters in the same order.
func Diff(here, there string) string {
	n1, p1, ok1 := split(here)
	n2, p2, ok2 := split(there)
	if !ok1 || !ok2 || n1 != n2 || len(p1) != len(p2) {
		return ""
	}
	var out []string
	for i := range p1 {
		k1, v1, named1 := strings.Cut(p1[i], "=")
		k2, v2, named2 := strings.Cut(p2[i], "=")
		switch {
		case !named1 && !named2: // a positional parameter: take(90)
			k1, v1, v2 = fmt.Sprintf("parameter %d", i+1), p1[i], p2[i]
		case k1 != k2:
			return ""
		}
		if v1 != v2 {
			out = append(out, fmt.Sprintf("%s: %s here, %s in the checkpoint", k1, v1, v2))
		}
	}
	return strings.Join(out, "; ")
}

// split cuts name(k=v,...) into its name and its top-level k=v items.
func split(k string) (string, []string, bool) {
	open := strings.IndexByte(k, '(')
	if open < 0 || !strings.HasSuffix(k, ")") {
		return "", nil, false
	}
	body := k[open+1 : len(k)-1]
	var items []string
	depth, start := 0, 0
	for i, c := range body {
		switch c {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			depth--
		case ',':
			if depth == 0 {
				items = append(items, body[start:i])
				start = i + 1
			}
		}
	}
	items = append(items, body[start:])
	return k[:open], items, true
}
