// Package dataid describes the files a reader reads, for the data digest of
// a checkpoint (source.Identifier): their base names, sizes and ETags (for
// a local file, its size and modification time). Directories are left out,
// so a run resumes with its data moved to another directory or bucket, as
// long as the files themselves are the same.
package dataid

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"github.com/tensorfeed/tensorfeed/storage"
)

// listed is how many files an identity names one by one; more are
// summed up by a digest, so that an identity stays a line.
const listed = 3

// Files returns the identity of the files at paths, opened through
// storage with opts (one stat, or one HEAD request, each): "a.rec (1234
// bytes, etag 4d2-17f3a...)" for each file, or for many files their count, the first
// name and a digest of them all. An error names the file that cannot be
// opened.
func Files(ctx context.Context, paths []string, opts ...storage.Option) (string, error) {
	ids := make([]string, len(paths))
	for i, p := range paths {
		o, err := storage.OpenFile(ctx, p, opts...)
		if err != nil {
			return "", err
		}
		ids[i] = fmt.Sprintf("%s (%d bytes, etag %s)", base(p), o.Size(), o.ETag())
		o.Close()
	}
	if len(ids) <= listed {
		return strings.Join(ids, ", "), nil
	}
	sum := sha256.Sum256([]byte(strings.Join(ids, "\x00")))
	return fmt.Sprintf("%d files from %s, %s", len(ids), ids[0], hex.EncodeToString(sum[:8])), nil
}

// base returns the base name of a path or URL.
func base(p string) string { return path.Base(strings.ReplaceAll(p, `\`, "/")) }
