package jetstream_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/jetstream"
	"github.com/tensorfeed/tensorfeed/source"
)

// FuzzReadMessage publishes arbitrary bytes and reads them back with a
// strict decoder, a small MaxMessageBytes and a policy that skips every bad
// message: each message is either a sample equal to what strconv makes of
// it, or skipped with a *tensorfeed.Error wrapping tensorfeed.ErrBadData
// whose Record is its stream sequence (ErrTooLarge when it is over the limit), and
// the pass ends at the tail.
func FuzzReadMessage(f *testing.F) {
	for _, s := range []string{"0", "-17", "12345678", "x", "", "9999999999999999999999", "\x00\xff"} {
		f.Add([]byte(s))
	}
	ns := startServer(f)
	js := connect(f, ns)
	newStream(f, js)
	newConsumer(f, js, "fuzz", consumerConfig(time.Minute, 100))
	var skipped error
	policy := source.SkipBad(1, source.OnSkip(func(err error) { skipped = err }))
	r := jetstream.Read(js, "S", "fuzz", decodeInt, jetstream.EndAtTail(), jetstream.MaxMessageBytes(16),
		jetstream.MaxWait(200*time.Millisecond), jetstream.OnBad(policy))
	var seq uint64
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if _, err := js.Publish(ctx, "s.fuzz", data); err != nil {
			t.Fatal(err)
		}
		seq++
		skipped = nil
		var got []jetstream.Message[int]
		for m, err := range r.All(ctx) {
			if err != nil {
				t.Fatalf("%q: %v", data, err)
			}
			got = append(got, m)
		}
		for _, m := range got {
			if err := m.Msg().Ack(); err != nil {
				t.Fatal(err)
			}
		}
		want, werr := strconv.Atoi(string(data))
		if len(data) <= 16 && werr == nil {
			if len(got) != 1 || got[0].Value != want || seqOf(got[0]) != seq || skipped != nil {
				t.Fatalf("%q: %d samples (skipped %v), want %d at %d", data, len(got), skipped, want, seq)
			}
			return
		}
		var me *tensorfeed.Error
		if len(got) != 0 || !errors.As(skipped, &me) || !errors.Is(skipped, tensorfeed.ErrBadData) || me.Record != int64(seq) ||
			me.Path != "jetstream:S" || me.Member != "s.fuzz" {
			t.Fatalf("%q: %d samples, skipped %v; want a *tensorfeed.Error at sequence %d", data, len(got), skipped, seq)
		}
		if len(data) > 16 && !errors.Is(skipped, jetstream.ErrTooLarge) {
			t.Fatalf("%q: skipped %v, want ErrTooLarge", data, skipped)
		}
	})
}
