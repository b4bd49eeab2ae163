// Package storage opens local files, S3-compatible objects and HTTP
// resources through one type, so that readers take a path or a URL alike.
//
// # Opening
//
// [OpenFile] takes a local path, an s3://bucket/key name or an http(s)://
// URL and returns a [File]: its Size, Name and ETag (the version it was
// opened at), ReadAt for random access (one range request per call) and
// Read for streaming formats, which keeps several range requests of a
// remote object in flight ahead of the reader ([ReadAhead]).
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
// Every error is a [*tensorfeed.Error], the positioned error of every
// tensorfeed reader: its Path is the path or URL of the object (the
// directory, for a cache that cannot be created), its Offset the first byte
// of the range a read asked for (-1 for an operation on the whole object:
// open, list, cache), and its Err names the operation and the range and
// wraps a sentinel when one applies: [ErrNotFound], [ErrDenied],
// [ErrRange], [ErrChanged], [ErrUnvalidated], [ErrBadResponse],
// [ErrCacheWrite] or [ErrTransient]. For example:
//
//	s3://data/train.rec: byte 100: storage: read bytes 100-149: storage: transient failure: 5 attempts: HTTP 503 Service Unavailable: SlowDown: Please reduce your request rate.
//
// Transient failures (5xx and 429 answers, refused or reset connections,
// timeouts, a body cut short) are retried a bounded number of times with
// exponential backoff and jitter ([Retry]), logged through
// tensorfeed.Logger; 4xx answers such as refused credentials or a missing
// object are not retried.
//
// # One version per object
//
// The bytes read through one [File] come from the version it was opened
// at, or the read fails with [ErrChanged] (never retried): never a silent
// mix of two versions, such as records of a new .rec read through the .idx
// of the old one. Every range request is conditional on the validators
// seen at open: If-Match with the ETag (S3, and HTTP servers that send a
// strong one), If-Unmodified-Since with the Last-Modified; a 412 answer is
// ErrChanged. Every answer is checked too: its ETag and Last-Modified
// against those at open, the total of its Content-Range against the size
// at open ("object changed while being read: size N at open, M now"), its
// range against the one asked for and its body against the range's length
// ([ErrBadResponse]; a body cut short is retried, asking for the rest).
// Last-Modified counts whole seconds: an object rewritten within the second
// of its Last-Modified at the same size is noticed only through an ETag.
//
// A server that sends neither ETag nor Last-Modified leaves only the size
// to compare. A read of the whole object in one request is allowed (one
// answer is one version; its retry asks for the whole again): a ReadAt
// of all of it, or Reads from the start whose [ReadAhead] block holds it (8 MiB
// by default). Reading a part (a ReadAt of a range, Reads over several
// blocks, a Seek before Reads, a format read through an index) fails with [ErrUnvalidated]
// unless [AllowUnvalidated] accepts the risk; the first such read of each
// opened object then logs a warning.
//
// # Cache
//
// [WithCache] reads remote objects through a [Cache]: a directory of whole
// objects with a byte limit and least-recently-used eviction, shared safely
// by several processes and kept across restarts. When the cache cannot take
// an object (a full or read-only disk, an object larger than the limit), OpenFile
// fails with [ErrCacheWrite], or reads the object directly with
// [CacheFallback].
package storage
