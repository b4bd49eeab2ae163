package csv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/samber/lo"
	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/internal/marks"
	"github.com/tensorfeed/tensorfeed/internal/option"
	"github.com/tensorfeed/tensorfeed/internal/streamfile"
	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
	"github.com/tensorfeed/tensorfeed/source"
	"github.com/tensorfeed/tensorfeed/storage"
)

// Row is one row of a CSV file: its data values and its labels. Under the
// default [DType], float32, they are in Data and Label; under DType(Int32)
// or DType(Int64) they are in IntData and IntLabel, exactly as written in
// the file, and Data and Label are nil. The slices belong to the row,
// unless the reader was made with [ReuseBuffer].
type Row struct {
	Data     []float32 // the data values, DataShape elements in row-major order
	Label    []float32 // the labels, LabelShape elements (zeros without labels)
	IntData  []int64   // the data values under an integer DType (each fits it), else nil
	IntLabel []int64   // the labels under an integer DType (zeros without labels), else nil
	Line     int       // the row's line in the data file (1-based)
}

// fillData copies the row's data into dst: the fill function of a sink's
// float32 data field.
func fillData(r Row, dst []float32) { copy(dst, r.Data) }

// fillLabel copies the row's labels into dst: the fill function of a
// sink's float32 label field.
func fillLabel(r Row, dst []float32) { copy(dst, r.Label) }

// fillDataInt32 copies the row's integer data into dst: the fill function
// of a sink's int32 data field, for rows read under DType(Int32), whose
// values all fit an int32.
func fillDataInt32(r Row, dst []int32) { copyInt32(dst, r.IntData) }

// fillLabelInt32 copies the row's integer labels into dst: the fill
// function of a sink's int32 label field, for rows read under
// DType(Int32).
func fillLabelInt32(r Row, dst []int32) { copyInt32(dst, r.IntLabel) }

// fillDataInt64 copies the row's integer data into dst: the fill function
// of a sink's int64 data field, for rows read under DType(Int64) (or
// Int32).
func fillDataInt64(r Row, dst []int64) { copy(dst, r.IntData) }

// fillLabelInt64 copies the row's integer labels into dst: the fill
// function of a sink's int64 label field, for rows read under DType(Int64)
// (or Int32).
func fillLabelInt64(r Row, dst []int64) { copy(dst, r.IntLabel) }

func copyInt32(dst []int32, src []int64) {
	for i, v := range src[:min(len(src), len(dst))] {
		dst[i] = int32(v)
	}
}

// Col names a column: by its header name ([Name]) or by its 0-based index
// ([Index]; negative indexes count from the end, -1 is the last column).
type Col struct {
	name   string
	index  int
	byName bool
}

// Name selects the column whose header is name (spaces around header names
// are ignored). It needs the Header option.
func Name(name string) Col { return Col{name: name, byName: true} }

// Index selects the column at index i (0-based); -1 is the last column.
func Index(i int) Col { return Col{index: i} }

func (c Col) String() string {
	if c.byName {
		return strconv.Quote(c.name)
	}
	return strconv.Itoa(c.index)
}

// Reader reads the rows of a CSV file (and of its label file). It is a
// source.Reader[Row]: every call to All opens the files, reads one pass and
// closes them. Passes may run concurrently.
type Reader struct {
	path string
	cfg  config
	core streamfile.Stream
}

type config struct {
	comma, comment rune
	header         bool
	skip           int
	dataShape      []int
	labelShape     []int
	dataCols       []Col
	labelCols      []Col
	labelFile      string
	classes        map[string]float32
	finite         bool
	dtype          sample.DType
	maxLine        int
	maxField       int
	reuse          bool
	bad            *source.SkipPolicy
	storage        []storage.Option
}

// An Option configures a Reader.
type Option = option.Option[config]

// Delimiter sets the field separator (default ',').
func Delimiter(r rune) Option { return option.New(func(c *config) { c.comma = r }) }

// Comment makes lines that start with r comments, skipped (default: none).
func Comment(r rune) Option { return option.New(func(c *config) { c.comment = r }) }

// Header makes the first row (after SkipRows) the column names: it is not
// data, and Name selects columns by it.
func Header() Option { return option.New(func(c *config) { c.header = true }) }

// SkipRows skips the first n rows of the data file, before the header if
// there is one: for example scikit-learn's metadata line
// "150,4,setosa,versicolor,virginica" in iris.csv.
func SkipRows(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("csv: SkipRows(%d)", n))
	}
	return option.New(func(c *config) { c.skip = n })
}

// DataShape sets the shape of one row's data (MXNet's data_shape). The
// number of data columns must equal the product of its dimensions; a pass
// over a file where it does not fails with ErrShape. Without it the shape is
// [number of data columns].
func DataShape(dims ...int) Option {
	checkShape("DataShape", dims)
	return option.New(func(c *config) { c.dataShape = append([]int(nil), dims...) })
}

// LabelShape sets the shape of one row's labels (MXNet's label_shape).
// Without labels, rows get zero labels of this shape. The default is
// [number of label columns], or [1] without labels.
func LabelShape(dims ...int) Option {
	checkShape("LabelShape", dims)
	return option.New(func(c *config) { c.labelShape = append([]int(nil), dims...) })
}

func checkShape(fn string, dims []int) {
	if len(dims) == 0 {
		panic(fmt.Sprintf("csv: %s: no dimensions", fn))
	}
	for _, d := range dims {
		if d < 1 {
			panic(fmt.Sprintf("csv: %s%v: dimensions must be >= 1", fn, dims))
		}
	}
}

// LabelFile reads the labels from a second file, row i of which holds the
// labels of row i of the data file (MXNet's label_csv). It has no header;
// Delimiter and Comment apply to it too. Both files must hold the same
// number of rows, or the pass ends with an ErrFormat error that says
// which ends first. The path may be a URL, as New's.
func LabelFile(path string) Option { return option.New(func(c *config) { c.labelFile = path }) }

// LabelColumns takes the labels from these columns of the data file, in
// this order. They are not data unless DataColumns names them.
func LabelColumns(cols ...Col) Option {
	return option.New(func(c *config) { c.labelCols = append([]Col(nil), cols...) })
}

// DataColumns takes the data from these columns only, in this order.
// Without it every column that is not a label is data.
func DataColumns(cols ...Col) Option {
	return option.New(func(c *config) { c.dataCols = append([]Col(nil), cols...) })
}

// Classes maps string labels to numbers: names[i] becomes i. Every label
// must then be one of the names (ErrClass), for example Iris's
// "Iris-setosa", "Iris-versicolor", "Iris-virginica". Classes panics when a
// name is repeated.
func Classes(names ...string) Option {
	if dup := lo.FindDuplicates(names); len(dup) > 0 {
		panic(fmt.Sprintf("csv: Classes: %q repeated", dup[0]))
	}
	m := make(map[string]float32, len(names))
	for i, n := range names {
		m[n] = float32(i)
	}
	return option.New(func(c *config) { c.classes = m })
}

// Finite refuses inf and nan in data and label fields: a row holding one is
// bad (ErrNumber). By default they are accepted, as dmlc's parser does.
func Finite() Option { return option.New(func(c *config) { c.finite = true }) }

// DType sets the element type of data and labels (MXNet's CSVIter dtype):
// sample.Float32 (the default), sample.Int32 or sample.Int64. Under an
// integer type a field must be a base-10 integer (spaces around it, and a
// sign, allowed) that fits the type, and is kept exactly in Row.IntData and
// Row.IntLabel, where float32 would round 200000001 to 200000000; a field
// that is not an integer ("1.5", "1e3", "nan") or does not fit
// (2147483648 under Int32) makes its row bad with ErrNumber. Classes
// labels become 0, 1, 2, ... of the type. Layout's Sink then makes int32
// or int64 tensors, which it fills. DType panics on any other
// type.
func DType(d sample.DType) Option {
	if d != sample.Float32 && d != sample.Int32 && d != sample.Int64 {
		panic(fmt.Sprintf("csv: DType(%v): want float32, int32 or int64", d))
	}
	return option.New(func(c *config) { c.dtype = d })
}

// MaxLineBytes sets the most bytes a row may hold (default
// [defaultMaxLineBytes]), line ends aside; a row whose quoted fields hold
// line breaks counts the bytes of all its lines. A longer row ends the pass
// with a [*tensorfeed.Error] wrapping [ErrTooLarge] at the line and column
// where it passes n, after reading at most about n bytes of it, under any
// bad-record policy: where the next row starts cannot be known when the
// row may hold quotes, and the fix is a larger limit. Comment lines are
// bounded too. MaxLineBytes panics unless 1 <= n <= 1<<30.
func MaxLineBytes(n int) Option {
	if n < 1 || n > maxLimit {
		panic(fmt.Sprintf("csv: MaxLineBytes(%d): must be in [1, %d]", n, maxLimit))
	}
	return option.New(func(c *config) { c.maxLine = n })
}

// MaxFieldBytes sets the most bytes a field may hold after its quotes are
// removed (default 256 KiB). A longer field makes its row
// bad ([ErrTooLarge]), which a bad-record policy may skip. It panics
// unless 1 <= n <= 1<<30.
func MaxFieldBytes(n int) Option {
	if n < 1 || n > maxLimit {
		panic(fmt.Sprintf("csv: MaxFieldBytes(%d): must be in [1, %d]", n, maxLimit))
	}
	return option.New(func(c *config) { c.maxField = n })
}

// ReuseBuffer makes the rows of a pass share their memory, as
// encoding/csv's ReuseRecord does: a row's Data and Label (IntData and
// IntLabel) are valid only until the next row is read. Use it when each
// row is consumed (copied into a batch, say) before the next one is asked
// for, and never with a stage that holds on to rows (Shuffle, Buffered,
// Cache, a batch of rows rather than of tensors). It saves writing every
// row into new memory, which is most of what a pass costs beyond parsing.
// [Reader.Load] ignores it: the rows it keeps are its own.
func ReuseBuffer() Option { return option.New(func(c *config) { c.reuse = true }) }

// Storage sets the options of package storage through which the data and
// label files are opened: each path may be a local path, an
// s3://bucket/key object or an http(s):// URL (see [storage.Open]), and
// opts say how to reach it (endpoint, credentials, retries, read-ahead, a
// cache). Without it, URLs are opened with storage's defaults. Errors of
// the storage name the URL and the byte range.
func Storage(opts ...storage.Option) Option {
	return option.New(func(c *config) { c.storage = append(c.storage, opts...) })
}

// OnBad sets the bad-record policy, which may be shared with other readers.
// A bad row is one that cannot be split into fields (a stray quote, a
// field over MaxFieldBytes), has the wrong number of fields, or holds a
// field that does not parse (ErrNumber, ErrClass); with a label file, a
// data row and its label row are skipped together. The policy's warnings
// go to the logger of the pass's context (tensorfeed.WithLogger). Whatever the policy, the pass fails on a
// missing or unreadable file, a row over MaxLineBytes, a header or first
// row that cannot be read, a layout that does not fit (ErrColumn,
// ErrShape), a file with no rows and data and label files of
// different lengths. The default, a nil policy, fails the
// pass at the first bad row.
func OnBad(p *source.SkipPolicy) Option { return option.New(func(c *config) { c.bad = p }) }

// New returns a reader of the CSV file at path, a local path or a URL
// (see [Storage]). The file is opened when a pass starts. New panics on a contradictory configuration: an invalid
// delimiter or comment character, both LabelFile and LabelColumns, or
// columns selected by Name without Header.
func New(path string, opts ...Option) *Reader {
	c := config{comma: ',', dtype: sample.Float32, maxLine: defaultMaxLineBytes, maxField: defaultMaxFieldBytes}
	option.Apply(&c, opts)
	if !validDelim(c.comma) || (c.comment != 0 && !validDelim(c.comment)) || c.comma == c.comment {
		panic(fmt.Sprintf("csv: New: invalid delimiter %q or comment %q", c.comma, c.comment))
	}
	if c.labelFile != "" && len(c.labelCols) > 0 {
		panic("csv: New: LabelFile and LabelColumns both set")
	}
	if col, found := lo.Find(slices.Concat(c.labelCols, c.dataCols), func(col Col) bool { return col.byName }); found && !c.header {
		panic(fmt.Sprintf("csv: New: column %s selected by name without Header", col))
	}
	width := 2 // see ends
	if c.labelFile != "" {
		width = 4
	}
	return &Reader{path: path, cfg: c, core: streamfile.New("csv", "rows", kind(path, c), width)}
}

// Skipped returns how many bad rows the reader's policy (OnBad)
// has skipped, over all passes and all readers that share the policy; 0
// without one. It makes the reader a source.SkipCounted.
func (r *Reader) Skipped() int64 { return r.cfg.bad.Skipped() }

func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && utf8.ValidRune(r) && r != utf8.RuneError
}

// rowLayout describes the rows of a file: which columns hold data and
// labels and the shapes of a row's data and labels. [Reader.Layout]
// returns it; the type is not exported.
type rowLayout struct {
	Columns    []string // the header's names, nil without Header
	DataCols   []int    // 0-based indexes of the data columns, in order
	LabelCols  []int    // 0-based indexes of the label columns (nil with LabelFile or no labels)
	DataShape  []int
	LabelShape []int
	DType      sample.DType // the element type of data and labels (the DType option)
}

// Layout reads the start of the file(s) and returns the layout of its rows:
// which columns hold data and labels (Columns, the header's names, nil
// without Header; DataCols and LabelCols, 0-based indexes, LabelCols nil
// with LabelFile or no labels), the shapes of a row's data and labels
// (DataShape, LabelShape) and their element type (DType), and its Sink
// method, which makes CSVIter's tensors. It fails as a pass would on a
// missing column or a shape mismatch.
func (r *Reader) Layout() (rowLayout, error) {
	p, err := r.start(context.Background(), false)
	if err != nil {
		return rowLayout{}, err
	}
	p.close()
	return p.layout, nil
}

// Sink returns a sink for batches of up to batchSize rows of this layout,
// with a data tensor named "data" and a label tensor named
// "softmax_label", as MXNet's CSVIter provides them, both of the layout's
// DType (float32 unless the DType option says int32 or int64). The layout
// comes from [Reader.Layout], which reads the start of the file, so that
// the sink can describe its tensors before the first batch.
func (l rowLayout) Sink(batchSize int) *sink.Sink[Row] {
	var data, label sink.Field[Row]
	switch l.DType {
	case sample.Int32:
		data = sink.Int32("data", l.DataShape, fillDataInt32)
		label = sink.Int32("softmax_label", l.LabelShape, fillLabelInt32)
	case sample.Int64:
		data = sink.Int64("data", l.DataShape, fillDataInt64)
		label = sink.Int64("softmax_label", l.LabelShape, fillLabelInt64)
	default:
		data = sink.Float32("data", l.DataShape, fillData)
		label = sink.Float32("softmax_label", l.LabelShape, fillLabel)
	}
	return sink.New(batchSize, []sink.Field[Row]{data}, []sink.Field[Row]{label})
}

// pass is the state of one pass.
type pass struct {
	cfg       *config
	data, lab *file
	layout    rowLayout
	ncols     int // fields per data row
	nlab      int // fields per label file row
	dn, ln    int // elements of data and labels per row
	block     []float32
	iblock    []int64 // the block of rows under an integer DType
	reuse     bool    // every row takes the same memory of the block (ReuseBuffer)
}

// start opens the file(s), reads the header and the first row and resolves
// the layout. With head, the files are read through ReadAt until they seek
// (a resumed pass).
func (r *Reader) start(ctx context.Context, head bool) (p *pass, err error) {
	c := &r.cfg
	p = &pass{cfg: c}
	p.layout.DType = c.dtype
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.data, err = c.open(ctx, r.path, head); err != nil {
		return p, err
	}
	for range c.skip {
		if err := p.data.read(); err != nil {
			return p, p.noRows(err, "in the rows SkipRows skips")
		}
	}
	headerLine := 0
	if c.header {
		if err := p.data.read(); err != nil {
			return p, p.noRows(err, "before the header")
		}
		headerLine = p.data.recLine
		for i := range p.data.n() {
			p.layout.Columns = append(p.layout.Columns, strings.Clone(strings.TrimSpace(p.data.field(i))))
		}
	}
	// The first row stays in p.data for the pass to decode: a ragged
	// first row after a header is a bad row like any other.
	if err := p.data.read(); err != nil {
		return p, p.noRows(err, "")
	}
	firstLine := p.data.recLine
	p.ncols = p.data.n()
	where := firstLine
	if c.header {
		p.ncols, where = len(p.layout.Columns), headerLine
	}
	resolve := func(cols []Col) ([]int, error) {
		out := make([]int, len(cols))
		for i, col := range cols {
			idx := -1
			switch {
			case col.byName:
				idx = lo.IndexOf(p.layout.Columns, col.name)
			case col.index < 0 && col.index >= -p.ncols:
				idx = p.ncols + col.index
			case col.index >= 0 && col.index < p.ncols:
				idx = col.index
			}
			if idx < 0 {
				return nil, parseError(r.path, where, 0, 0, fmt.Errorf("%w: %s among %d columns", ErrColumn, col, p.ncols))
			}
			out[i] = idx
		}
		return out, nil
	}
	if p.layout.LabelCols, err = resolve(c.labelCols); err != nil {
		return p, err
	}
	if len(c.labelCols) == 0 {
		p.layout.LabelCols = nil
	}
	if len(c.dataCols) > 0 {
		if p.layout.DataCols, err = resolve(c.dataCols); err != nil {
			return p, err
		}
	} else {
		p.layout.DataCols = lo.Without(lo.Range(p.ncols), p.layout.LabelCols...)
	}
	p.dn = len(p.layout.DataCols)
	if p.dn == 0 {
		return p, parseError(r.path, where, 0, 0, fmt.Errorf("%w: no data columns", ErrShape))
	}
	p.layout.DataShape = []int{p.dn}
	if c.dataShape != nil {
		if n := sample.Elems(c.dataShape); n != p.dn {
			return p, parseError(r.path, where, 0, 0, fmt.Errorf("%w: %d data columns for data shape %v (%d values)", ErrShape, p.dn, c.dataShape, n))
		}
		p.layout.DataShape = append([]int(nil), c.dataShape...)
	}
	// Labels: from columns, from a file, or zeros.
	p.ln = len(p.layout.LabelCols)
	labPath, labLine := r.path, where
	if c.labelFile != "" {
		if p.lab, err = c.open(ctx, c.labelFile, head); err != nil {
			return p, err
		}
		err := p.lab.read()
		if err == io.EOF {
			return p, parseError(r.path, firstLine, 0, 0, fmt.Errorf("%w: no label for this row: %s is empty", errRowCount, c.labelFile))
		}
		if err != nil {
			return p, err
		}
		p.nlab, p.ln = p.lab.n(), p.lab.n()
		labPath, labLine = c.labelFile, 1
	}
	switch {
	case c.labelShape == nil && p.ln == 0:
		p.ln = 1
		p.layout.LabelShape = []int{1}
	case c.labelShape == nil:
		p.layout.LabelShape = []int{p.ln}
	default:
		n := sample.Elems(c.labelShape)
		if p.ln != 0 && n != p.ln {
			return p, parseError(labPath, labLine, 0, 0, fmt.Errorf("%w: %d labels for label shape %v (%d values)", ErrShape, p.ln, c.labelShape, n))
		}
		p.ln = n
		p.layout.LabelShape = append([]int(nil), c.labelShape...)
	}
	return p, nil
}

// noRows turns the end of the file before the first data row into an
// error: a pass never silently yields nothing.
func (p *pass) noRows(err error, where string) error {
	if err != io.EOF {
		return err
	}
	err = errEmpty
	if where != "" {
		err = fmt.Errorf("%w: the file ends %s", errEmpty, where)
	}
	line := 1
	if p.data.rows > 0 {
		line = p.data.recLine + 1
	}
	return parseError(p.data.path, line, 0, 0, err)
}

func (p *pass) close() {
	if p.data != nil {
		p.data.f.Close()
	}
	if p.lab != nil {
		p.lab.f.Close()
	}
}

// fieldCount is the error for the last record of f, which does not have
// want fields.
func (p *pass) fieldCount(f *file, want int) error {
	n := f.n()
	line, col := f.recLine, 1
	field := 0
	if n > want {
		line, col = f.pos(want)
		field = want + 1
	} else if n > 0 {
		l, c := f.pos(n - 1)
		line, col, field = l, c+len(f.field(n-1)), n+1
	}
	return parseError(f.path, line, col, field, fmt.Errorf("%w: %d fields, want %d", ErrFieldCount, n, want))
}

// blockFloats is about how many values the rows of one allocation hold:
// small rows share a block, a row wider than it gets its own, so that
// memory grows with the bytes read, never with a multiple of a row.
const blockFloats = 4096

// row decodes the last data record (and the matching label record, if
// any). It takes memory from the block only for a good row.
func (p *pass) row() (Row, error) {
	if p.data.n() != p.ncols {
		return Row{}, p.fieldCount(p.data, p.ncols)
	}
	if p.lab != nil && p.lab.n() != p.nlab {
		return Row{}, p.fieldCount(p.lab, p.nlab)
	}
	row := Row{Line: p.data.recLine}
	var err error
	if p.cfg.dtype == sample.Float32 {
		row.Data, row.Label, err = decode(p, &p.block, p.parseNum, p.parseLabel)
	} else {
		row.IntData, row.IntLabel, err = decode(p, &p.iblock, p.parseInt, p.parseIntLabel)
	}
	return row, err
}

// decode parses the data and labels of the last record into a row's slices
// carved from *block, which it advances only for a good row and never
// under ReuseBuffer.
func decode[E float32 | int64](p *pass, block *[]E, parse, parseLabel func(string) (E, error)) (data, label []E, err error) {
	per := p.dn + p.ln
	if len(*block) < per {
		*block = make([]E, per*max(1, blockFloats/per))
	}
	buf := (*block)[:per:per]
	data, label = buf[:p.dn:p.dn], buf[p.dn:]
	for k, i := range p.layout.DataCols {
		v, err := parse(p.data.field(i))
		if err != nil {
			return nil, nil, p.fieldErr(p.data, i, err)
		}
		data[k] = v
	}
	for k, i := range p.layout.LabelCols {
		v, err := parseLabel(p.data.field(i))
		if err != nil {
			return nil, nil, p.fieldErr(p.data, i, err)
		}
		label[k] = v
	}
	if p.lab != nil {
		for i := range p.nlab {
			v, err := parseLabel(p.lab.field(i))
			if err != nil {
				return nil, nil, p.fieldErr(p.lab, i, err)
			}
			label[i] = v
		}
	} else if len(p.layout.LabelCols) == 0 {
		clear(label) // the block may hold a bad row's values
	}
	if !p.reuse {
		*block = (*block)[per:]
	}
	return data, label, nil
}

func (p *pass) fieldErr(f *file, i int, err error) error {
	line, col := f.pos(i)
	return parseError(f.path, line, col, i+1, err)
}

// parseNum parses a float32, accepting spaces around it, and inf and nan
// unless Finite refuses them.
func (p *pass) parseNum(s string) (float32, error) {
	if v, ok := fastFloat32(s); ok {
		return v, nil
	}
	return p.parseFloat(s)
}

// parseFloat is parseNum for the fields that fastFloat32 leaves to
// strconv.
func (p *pass) parseFloat(s string) (float32, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%w: empty field", ErrNumber)
	}
	v, err := strconv.ParseFloat(t, 32)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %s is out of the float32 range", ErrNumber, excerpt(s))
		}
		return 0, fmt.Errorf("%w: %s", ErrNumber, excerpt(s))
	}
	if p.cfg.finite && (math.IsInf(v, 0) || math.IsNaN(v)) {
		return 0, fmt.Errorf("%w: %s is not finite (Finite)", ErrNumber, excerpt(s))
	}
	return float32(v), nil
}

// parseInt parses an integer of the DType, accepting spaces around it.
func (p *pass) parseInt(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%w: empty field", ErrNumber)
	}
	bits := 64
	if p.cfg.dtype == sample.Int32 {
		bits = 32
	}
	v, err := strconv.ParseInt(t, 10, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %s is out of the %v range (DType)", ErrNumber, excerpt(s), p.cfg.dtype)
		}
		return 0, fmt.Errorf("%w: %s is not an %v (DType)", ErrNumber, excerpt(s), p.cfg.dtype)
	}
	return v, nil
}

func (p *pass) parseIntLabel(s string) (int64, error) {
	if p.cfg.classes == nil {
		return p.parseInt(s)
	}
	v, err := p.parseLabel(s)
	return int64(v), err
}

func (p *pass) parseLabel(s string) (float32, error) {
	if p.cfg.classes == nil {
		v, err := p.parseNum(s)
		if err != nil {
			// Only a label that is not a number at all hints at Classes.
			if _, perr := strconv.ParseFloat(strings.TrimSpace(s), 32); errors.Is(perr, strconv.ErrSyntax) && strings.TrimSpace(s) != "" {
				err = fmt.Errorf("%w (string labels need Classes)", err)
			}
		}
		return v, err
	}
	v, ok := p.cfg.classes[trimSpace(s)]
	if !ok {
		return 0, fmt.Errorf("%w: %s", ErrClass, excerpt(s))
	}
	return v, nil
}

// All starts a pass over the rows. A bad row ends the pass with its
// *tensorfeed.Error, unless a bad-record policy (OnBad) skips it. The
// pass logs through tensorfeed.Logger(ctx): one debug entry when it starts,
// and a warning for each row the policy skips.
func (r *Reader) All(ctx context.Context) iter.Seq2[Row, error] { return r.all(ctx, r.cfg.reuse) }

// all is All, whose rows share their memory when reuse (see ReuseBuffer).
func (r *Reader) all(ctx context.Context, reuse bool) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		sp := r.core.Start(ctx)
		exact := r.core.From.Exact
		p, err := r.start(sp.Ctx, exact)
		if err != nil {
			yield(Row{}, err)
			return
		}
		p.reuse = reuse
		defer p.close()
		if exact {
			if err := r.seek(p, sp); err != nil {
				yield(Row{}, err)
				return
			}
			r.logResume(sp.Log)
		}
		if ce := sp.Log.Check(zap.DebugLevel, "csv pass"); ce != nil {
			ce.Write(zap.String("file", r.path), zap.String("labels", r.cfg.labelFile),
				zap.Ints("data_cols", p.layout.DataCols), zap.Ints("label_cols", p.layout.LabelCols),
				zap.Ints("data_shape", p.layout.DataShape), zap.Ints("label_shape", p.layout.LabelShape))
		}
		var bad int64
		if exact {
			// judged over the whole pass: the records before the offset
			// that are neither rows nor the head (SkipRows, header) were
			// skipped as bad
			bad = max(r.core.At[2]-sp.N-int64(p.skipped()), 0)
		}
		sp.OnBad(r.cfg.bad, bad)
		// start left the first record of each file read, without error.
		var recErr error
		for n := 0; ; n++ {
			if err := sp.Stopped(); err != nil {
				yield(Row{}, err)
				return
			}
			if n > 0 || exact {
				if recErr = p.data.read(); recErr == io.EOF {
					if err := cmp.Or(p.checkLabelEnd(), sp.End()); err != nil {
						yield(Row{}, err)
					}
					return
				}
				if recErr != nil && !rowLevel(recErr) {
					yield(Row{}, recErr)
					return
				}
				if p.lab != nil {
					// The label row of a bad data row is read too, so that
					// the files stay in step.
					labErr := p.lab.read()
					if labErr == io.EOF {
						labErr = parseError(r.path, p.data.recLine, 0, 0, fmt.Errorf("%w: no label for this row: %s ends after %d rows", errRowCount, r.cfg.labelFile, p.lab.rows))
					}
					if labErr != nil && !rowLevel(labErr) {
						yield(Row{}, labErr)
						return
					}
					recErr = cmp.Or(recErr, labErr)
				}
			}
			var row Row
			err := recErr
			if err == nil {
				row, err = p.row()
			}
			if err != nil {
				if err = sp.Bad(err); err != nil {
					yield(Row{}, err)
					return
				}
				continue
			}
			// the position after this row, whose count is N+1 (see ends)
			rows := sp.N + 1
			var keep bool
			if p.lab != nil {
				keep = sp.Good(marks.Pack(int64(p.data.rows)-rows, p.data.off), int64(p.data.line), marks.Pack(int64(p.lab.rows)-rows, p.lab.off), int64(p.lab.line))
			} else {
				keep = sp.Good(marks.Pack(int64(p.data.rows)-rows, p.data.off), int64(p.data.line))
			}
			if !keep {
				continue // dropped by a replay
			}
			if !yield(row, nil) {
				return
			}
		}
	}
}

// checkLabelEnd reports an error when the label file has rows left after
// the data file's last row.
func (p *pass) checkLabelEnd() error {
	if p.lab == nil {
		return nil
	}
	err := p.lab.read()
	switch {
	case err == io.EOF:
		return nil
	case err != nil && !rowLevel(err):
		return err
	}
	return parseError(p.lab.path, p.lab.recLine, 0, 0, fmt.Errorf("%w: %s ends after %d rows", errRowCount, p.data.path, p.data.rows-p.skipped()))
}

// skipped is the number of data-file records that are not rows.
func (p *pass) skipped() int {
	n := p.cfg.skip
	if p.cfg.header {
		n++
	}
	return n
}
