package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/tensorfeed/tensorfeed/dataset/imagerec"
	"github.com/tensorfeed/tensorfeed/dataset/recordio"
)

const recUsage = `
rec ls [--raw] FILE.rec     one tab-separated line per record: offset, id, flag, labels, image bytes, image sha256
                            (with --raw, for any payload: offset, payload bytes, payload sha256)
rec cat [--raw] FILE.rec N  write the image of record N (from 0, in file order) to stdout (the payload with --raw)`

// runRec runs "tensorfeed rec ls|cat ...".
func runRec(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("missing subcommand (ls or cat)")
	}
	sub := args[0]
	fs := flag.NewFlagSet("rec "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	raw := fs.Bool("raw", false, "treat payloads as opaque bytes, without an image record header")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return usagef("%v", err)
	}
	switch sub {
	case "ls":
		if len(pos) != 1 {
			return usagef("rec ls takes one file, got %d arguments", len(pos))
		}
		return recLs(ctx, pos[0], *raw, stdout)
	case "cat":
		if len(pos) != 2 {
			return usagef("rec cat takes a file and a record number, got %d arguments", len(pos))
		}
		n, err := strconv.Atoi(pos[1])
		if err != nil || n < 0 {
			return usagef("bad record number %q", pos[1])
		}
		return recCat(ctx, pos[0], n, *raw, stdout)
	}
	return usagef("unknown subcommand %q", sub)
}

// parseFlags parses flags that may come before, between or after the
// positional arguments, and returns the positional ones.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// eachRecord calls f with every record of the file at path, in file order,
// with its index and byte offset. The payload is valid only during the call.
func eachRecord(ctx context.Context, path string, f func(i int, off int64, payload []byte) (more bool, err error)) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	rd := recordio.NewReader(file)
	rd.Name = path
	rd.ReuseBuffer = true
	for i := 0; ; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		payload, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		more, err := f(i, rd.Offset(), payload)
		if err != nil {
			return fmt.Errorf("%s: record %d at offset %d: %w", path, i, rd.Offset(), err)
		}
		if !more {
			return nil
		}
	}
}

func recLs(ctx context.Context, path string, raw bool, stdout io.Writer) error {
	w := bufio.NewWriter(stdout)
	var h imagerec.Header
	var line []byte
	err := eachRecord(ctx, path, func(_ int, off int64, payload []byte) (bool, error) {
		line = strconv.AppendInt(line[:0], off, 10)
		data := payload
		if !raw {
			img, err := imagerec.ParseRecordInto(&h, payload)
			if err != nil {
				return false, err
			}
			data = img
			line = append(line, '\t')
			line = strconv.AppendUint(line, h.ID, 10)
			line = append(line, '\t')
			line = strconv.AppendUint(line, uint64(h.Flag), 10)
			line = append(line, '\t')
			line = appendLabels(line, h)
		}
		line = append(line, '\t')
		line = strconv.AppendInt(line, int64(len(data)), 10)
		line = append(line, '\t')
		sum := sha256.Sum256(data)
		line = hex.AppendEncode(line, sum[:])
		line = append(line, '\n')
		_, err := w.Write(line)
		return true, err
	})
	// Write what was listed before a bad record, then report it.
	return errors.Join(err, w.Flush())
}

// appendLabels appends the record's labels, comma-separated: the array when
// flag > 0, else the single header label.
func appendLabels(dst []byte, h imagerec.Header) []byte {
	var buf [8]float32
	for i, l := range h.AppendLabels(buf[:0]) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, float64(l), 'g', -1, 32)
	}
	return dst
}

func recCat(ctx context.Context, path string, n int, raw bool, stdout io.Writer) error {
	found := false
	count := 0
	err := eachRecord(ctx, path, func(i int, _ int64, payload []byte) (bool, error) {
		count = i + 1
		if i < n {
			return true, nil
		}
		found = true
		data := payload
		if !raw {
			_, img, err := imagerec.ParseRecord(payload)
			if err != nil {
				return false, err
			}
			data = img
		}
		_, err := stdout.Write(data)
		return false, err
	})
	if err == nil && !found {
		err = fmt.Errorf("%s: no record %d: the file has %d records", path, n, count)
	}
	return err
}
