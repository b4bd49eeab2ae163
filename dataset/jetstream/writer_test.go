package jetstream_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tensorfeed/tensorfeed"
	"github.com/tensorfeed/tensorfeed/dataset/jetstream"
	"github.com/tensorfeed/tensorfeed/source"
)

func TestWriteAllThenRead(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	w := jetstream.NewWriter(js, "s.data", encodeInt, jetstream.Window[int](8), jetstream.ExpectStream[int]("S"))
	n, err := w.WriteAll(ctx, source.Slice(ints(500)))
	if err != nil || n != 500 || w.Acked() != 500 {
		t.Fatalf("WriteAll = %d, %v (acked %d); want 500", n, err, w.Acked())
	}
	r := jetstream.Read(js, "S", "c", decodeInt, jetstream.Create(consumerConfig(time.Minute, 1000)), jetstream.EndAtTail())
	got, err := source.Collect(ctx, jetstream.Values(r))
	if err != nil || len(got) != 500 {
		t.Fatalf("read %d, %v; want 500", len(got), err)
	}
	for i, v := range got {
		if v != i {
			t.Fatalf("sample %d = %d", i, v)
		}
	}
}

// MsgID makes publishing a sample twice store it once.
func TestMsgIDDeduplicates(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	w := jetstream.NewWriter(js, "s.data", encodeInt, jetstream.MsgID(strconv.Itoa))
	for _, v := range []int{1, 2, 2, 3, 1} {
		if err := w.Write(ctx, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, "S")
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Info(ctx)
	if err != nil || in.State.Msgs != 3 {
		t.Fatalf("stream holds %d messages (%v), want 3", in.State.Msgs, err)
	}
}

func TestWriterErrors(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	boom := errors.New("boom")
	w := jetstream.NewWriter(js, "s.data", func(v int) ([]byte, error) {
		if v == 3 {
			return nil, boom
		}
		return encodeInt(v)
	})
	var err error
	for v := range 5 {
		if err = w.Write(ctx, v); err != nil {
			break
		}
	}
	var pe *tensorfeed.Error
	if !errors.As(err, &pe) || !errors.Is(err, boom) || pe.Record != 3 || pe.Member != "s.data" || pe.Path != "" || pe.Offset != -1 {
		t.Fatalf("Write = %v, want a *tensorfeed.Error for sample 3 wrapping boom", err)
	}
	if want := `record 3: member "s.data": jetstream: encode: boom`; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
	if err2 := w.Flush(ctx); err2 != err {
		t.Fatalf("Flush after a failure = %v, want the same error", err2)
	}

	for name, c := range map[string]struct {
		w    *jetstream.Writer[int]
		path string
	}{
		"no stream":     {jetstream.NewWriter(js, "elsewhere", encodeInt, jetstream.AckTimeout[int](2*time.Second)), ""},
		"wrong stream":  {jetstream.NewWriter(js, "s.data", encodeInt, jetstream.ExpectStream[int]("OTHER")), "jetstream:OTHER"},
		"flushed error": {jetstream.NewWriter(js, "elsewhere", encodeInt, jetstream.Window[int](1), jetstream.AckTimeout[int](2*time.Second)), ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := c.w.WriteAll(ctx, source.Slice(ints(3)))
			if !errors.As(err, &pe) || pe.Record != 0 || pe.Path != c.path || !strings.Contains(err.Error(), "jetstream: publish: ") {
				t.Fatalf("WriteAll = %v, want a *tensorfeed.Error for sample 0 of %q", err, c.path)
			}
			t.Log(err)
		})
	}
}

func TestWriterCancel(t *testing.T) {
	ns := startServer(t)
	js := connect(t, ns)
	newStream(t, js)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := jetstream.NewWriter(js, "s.data", encodeInt, jetstream.Window[int](1))
	for v := range 3 {
		if err := w.Write(ctx, v); err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Write = %v, want context.Canceled", err)
			}
			break
		}
	}
	fctx, fcancel := context.WithTimeout(context.Background(), wait)
	defer fcancel()
	if err := w.Flush(fctx); err != nil {
		t.Fatalf("Flush = %v: a cancelled wait keeps the publish in flight", err)
	}
	if w.Acked() != 1 {
		t.Fatal(fmt.Sprint("acked ", w.Acked(), ", want 1"))
	}
}

func ints(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
