// Package storage opens local files, S3-compatible objects and HTTP
// resources through one type, so that readers take a path or a URL alike.
//
// # Opening
//
// [Open] takes a local path, an s3://bucket/key name or an http(s):// URL
// and returns an [Object]: its [Object.Size], [Object.Name] and
// [Object.ETag] (the version it was opened at), [Object.ReadAt] for random
// access (one range request per call) and [Object.Reader] for streaming
// formats, which keeps several range requests in flight ahead of the
// reader ([ReadAhead]).
//
// S3 goes through minio-go. The endpoint is the [Endpoint] option, else
// AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL, else Amazon S3; endpoints other
// than Amazon's are addressed path-style (MinIO's way). Credentials come from
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, then from
// ~/.aws/credentials and ~/.aws/config for AWS_PROFILE, else requests are
// anonymous; [Credentials] sets a key pair instead. The region is [Region],
// AWS_REGION or AWS_DEFAULT_REGION.
//
// HTTP objects need a server that answers Range requests (one that does not
// is read from the start of the body up to the range).
//
// # Listing
//
// [List] returns the shards of a dataset in lexical order: a local glob
// ("data/train-*.rec") or an S3 key glob ("s3://bucket/train-*.rec"); an S3
// pattern without glob characters lists a key prefix.
//
// # Failures
//
// Every error is an [*Error] naming the operation, the URL and, for reads,
// the byte range, and wraps a sentinel: [ErrNotFound], [ErrDenied],
// [ErrRange], [ErrChanged], [ErrCacheWrite] or [ErrTransient]. Transient
// failures (5xx and 429 answers, refused or reset connections, timeouts, a
// body cut short) are retried a bounded number of times with exponential
// backoff and jitter ([Retry]), logged through tensorfeed.Logger; 4xx
// answers such as refused credentials or a missing object are not retried.
// A read of an object whose ETag differs from the one it was opened with is
// an [ErrChanged] error, never a silent mix of two versions.
//
// # Cache
//
// [WithCache] reads remote objects through a [Cache]: a directory of whole
// objects with a byte limit and least-recently-used eviction, shared safely
// by several processes and kept across restarts. When the cache cannot take
// an object (a full or read-only disk, an object larger than the limit), Open
// fails with [ErrCacheWrite], or reads the object directly with
// [CacheFallback].
package storage
