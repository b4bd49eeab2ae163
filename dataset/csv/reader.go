package csv

import (
	"bufio"
	"context"
	stdcsv "encoding/csv"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/tensorfeed/tensorfeed/sample"
	"github.com/tensorfeed/tensorfeed/sink"
)

// Row is one row of a CSV file: its data values and its labels.
type Row struct {
	Data  []float32 // the data values, DataShape elements in row-major order
	Label []float32 // the labels, LabelShape elements (zeros without labels)
	Line  int       // the row's line in the data file (1-based)
}

// FillData copies the row's data into dst: the fill function of a sink's
// float32 data field.
func FillData(r Row, dst []float32) { copy(dst, r.Data) }

// FillLabel copies the row's labels into dst: the fill function of a
// sink's float32 label field.
func FillLabel(r Row, dst []float32) { copy(dst, r.Label) }

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
	log            *zap.Logger
}

// An Option configures a Reader.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Delimiter sets the field separator (default ',').
func Delimiter(r rune) Option { return optionFunc(func(c *config) { c.comma = r }) }

// Comment makes lines that start with r comments, skipped (default: none).
func Comment(r rune) Option { return optionFunc(func(c *config) { c.comment = r }) }

// Header makes the first row (after SkipRows) the column names: it is not
// data, and Name selects columns by it.
func Header() Option { return optionFunc(func(c *config) { c.header = true }) }

// SkipRows skips the first n rows of the data file, before the header if
// there is one: for example scikit-learn's metadata line
// "150,4,setosa,versicolor,virginica" in iris.csv.
func SkipRows(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("csv: SkipRows(%d)", n))
	}
	return optionFunc(func(c *config) { c.skip = n })
}

// DataShape sets the shape of one row's data (MXNet's data_shape). The
// number of data columns must equal the product of its dimensions; a pass
// over a file where it does not fails with ErrShape. Without it the shape is
// [number of data columns].
func DataShape(dims ...int) Option {
	checkShape("DataShape", dims)
	return optionFunc(func(c *config) { c.dataShape = append([]int(nil), dims...) })
}

// LabelShape sets the shape of one row's labels (MXNet's label_shape).
// Without labels, rows get zero labels of this shape. The default is
// [number of label columns], or [1] without labels.
func LabelShape(dims ...int) Option {
	checkShape("LabelShape", dims)
	return optionFunc(func(c *config) { c.labelShape = append([]int(nil), dims...) })
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
// number of rows (ErrRowCount).
func LabelFile(path string) Option { return optionFunc(func(c *config) { c.labelFile = path }) }

// LabelColumns takes the labels from these columns of the data file, in
// this order. They are not data unless DataColumns names them.
func LabelColumns(cols ...Col) Option {
	return optionFunc(func(c *config) { c.labelCols = append([]Col(nil), cols...) })
}

// DataColumns takes the data from these columns only, in this order.
// Without it every column that is not a label is data.
func DataColumns(cols ...Col) Option {
	return optionFunc(func(c *config) { c.dataCols = append([]Col(nil), cols...) })
}

// Classes maps string labels to numbers: names[i] becomes i. Every label
// must then be one of the names (ErrClass), for example Iris's
// "Iris-setosa", "Iris-versicolor", "Iris-virginica". Classes panics when a
// name is repeated.
func Classes(names ...string) Option {
	m := make(map[string]float32, len(names))
	for i, n := range names {
		if _, dup := m[n]; dup {
			panic(fmt.Sprintf("csv: Classes: %q repeated", n))
		}
		m[n] = float32(i)
	}
	return optionFunc(func(c *config) { c.classes = m })
}

// WithLogger sets the logger that reports each pass at debug level. The
// default, and what a nil logger means, is zap.NewNop().
func WithLogger(l *zap.Logger) Option {
	if l == nil {
		l = zap.NewNop()
	}
	return optionFunc(func(c *config) { c.log = l })
}

// New returns a reader of the CSV file at path. The file is opened when a
// pass starts. New panics on a contradictory configuration: an invalid
// delimiter or comment character, both LabelFile and LabelColumns, or
// columns selected by Name without Header.
func New(path string, opts ...Option) *Reader {
	c := config{comma: ',', log: zap.NewNop()}
	for _, o := range opts {
		o.apply(&c)
	}
	if !validDelim(c.comma) || (c.comment != 0 && !validDelim(c.comment)) || c.comma == c.comment {
		panic(fmt.Sprintf("csv: New: invalid delimiter %q or comment %q", c.comma, c.comment))
	}
	if c.labelFile != "" && len(c.labelCols) > 0 {
		panic("csv: New: LabelFile and LabelColumns both set")
	}
	if !c.header {
		for _, col := range append(append([]Col(nil), c.labelCols...), c.dataCols...) {
			if col.byName {
				panic(fmt.Sprintf("csv: New: column %s selected by name without Header", col))
			}
		}
	}
	if c.log == nil {
		c.log = zap.NewNop()
	}
	return &Reader{path: path, cfg: c}
}

func validDelim(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && utf8.ValidRune(r) && r != utf8.RuneError
}

// Layout describes the rows of a file: which columns hold data and labels
// and the shapes of a row's data and labels.
type Layout struct {
	Columns    []string // the header's names, nil without Header
	DataCols   []int    // 0-based indexes of the data columns, in order
	LabelCols  []int    // 0-based indexes of the label columns (nil with LabelFile or no labels)
	DataShape  []int
	LabelShape []int
}

// Layout reads the start of the file(s) and returns the layout of its rows.
// It fails as a pass would on a missing column or a shape mismatch.
func (r *Reader) Layout() (Layout, error) {
	p, err := r.start()
	if err != nil {
		return Layout{}, err
	}
	p.close()
	return p.layout, nil
}

// Sink returns a sink for batches of up to batchSize rows with a float32
// data tensor named "data" and a float32 label tensor named
// "softmax_label", as MXNet's CSVIter provides them. It reads the start of
// the file to learn the shapes (see Layout).
func (r *Reader) Sink(batchSize int, opts ...sink.Option) (*sink.Sink[Row], error) {
	l, err := r.Layout()
	if err != nil {
		return nil, err
	}
	return sink.New(batchSize,
		[]sink.Field[Row]{sink.Float32("data", l.DataShape, FillData)},
		[]sink.Field[Row]{sink.Float32("softmax_label", l.LabelShape, FillLabel)},
		opts...), nil
}

// file is one open CSV file.
type file struct {
	path  string
	f     *os.File
	r     *stdcsv.Reader
	first bool // no record read yet (a BOM may lead it)
	rows  int  // records read
}

func (c *config) open(path string) (*file, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	cr := stdcsv.NewReader(bufio.NewReaderSize(f, 1<<16))
	cr.Comma, cr.Comment = c.comma, c.comment
	cr.FieldsPerRecord = -1 // checked here, with a better error
	cr.ReuseRecord = true
	return &file{path: path, f: f, r: cr, first: true}, nil
}

// read returns the next record, io.EOF at the end, or an error that says
// where.
func (f *file) read() ([]string, error) {
	rec, err := f.r.Read()
	if err != nil {
		var pe *stdcsv.ParseError
		if errors.As(err, &pe) {
			return nil, &ParseError{File: f.path, Line: pe.Line, Column: pe.Column, Err: pe.Err}
		}
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("csv: %s: %w", f.path, err)
	}
	if f.first {
		f.first = false
		rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	}
	f.rows++
	return rec, nil
}

// pos returns the line and column of field i of the last record.
func (f *file) pos(i int) (line, col int) { return f.r.FieldPos(i) }

// pass is the state of one pass.
type pass struct {
	cfg        *config
	data, lab  *file
	layout     Layout
	ncols      int // fields per data row
	nlab       int // fields per label file row
	dn, ln     int // elements of data and labels per row
	first      []string
	firstLabel []string
	block      []float32
}

// start opens the file(s), reads the header and the first row and resolves
// the layout.
func (r *Reader) start() (p *pass, err error) {
	c := &r.cfg
	p = &pass{cfg: c}
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if p.data, err = c.open(r.path); err != nil {
		return p, err
	}
	for range c.skip {
		if _, err := p.data.read(); err != nil {
			return p, p.noRows(err, "in the rows SkipRows skips")
		}
	}
	headerLine := 0
	if c.header {
		rec, err := p.data.read()
		if err != nil {
			return p, p.noRows(err, "before the header")
		}
		headerLine, _ = p.data.pos(0)
		for _, name := range rec {
			p.layout.Columns = append(p.layout.Columns, strings.TrimSpace(name))
		}
	}
	rec, err := p.data.read()
	if err != nil {
		return p, p.noRows(err, "")
	}
	p.first = append([]string(nil), rec...)
	firstLine, _ := p.data.pos(0)
	p.ncols = len(rec)
	where := firstLine
	if c.header {
		p.ncols, where = len(p.layout.Columns), headerLine
		if len(rec) != p.ncols {
			return p, p.fieldCount(p.data, rec, p.ncols)
		}
	}
	resolve := func(cols []Col) ([]int, error) {
		out := make([]int, len(cols))
		for i, col := range cols {
			idx := -1
			switch {
			case col.byName:
				for j, n := range p.layout.Columns {
					if n == col.name {
						idx = j
						break
					}
				}
			case col.index < 0 && col.index >= -p.ncols:
				idx = p.ncols + col.index
			case col.index >= 0 && col.index < p.ncols:
				idx = col.index
			}
			if idx < 0 {
				return nil, &ParseError{File: r.path, Line: where, Err: fmt.Errorf("%w: %s among %d columns", ErrColumn, col, p.ncols)}
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
		isLabel := make([]bool, p.ncols)
		for _, i := range p.layout.LabelCols {
			isLabel[i] = true
		}
		for i := range p.ncols {
			if !isLabel[i] {
				p.layout.DataCols = append(p.layout.DataCols, i)
			}
		}
	}
	p.dn = len(p.layout.DataCols)
	if p.dn == 0 {
		return p, &ParseError{File: r.path, Line: where, Err: fmt.Errorf("%w: no data columns", ErrShape)}
	}
	p.layout.DataShape = []int{p.dn}
	if c.dataShape != nil {
		if n := sample.Elems(c.dataShape); n != p.dn {
			return p, &ParseError{File: r.path, Line: where, Err: fmt.Errorf("%w: %d data columns for data shape %v (%d values)", ErrShape, p.dn, c.dataShape, n)}
		}
		p.layout.DataShape = append([]int(nil), c.dataShape...)
	}
	// Labels: from columns, from a file, or zeros.
	p.ln = len(p.layout.LabelCols)
	labPath, labLine := r.path, where
	if c.labelFile != "" {
		if p.lab, err = c.open(c.labelFile); err != nil {
			return p, err
		}
		rec, err := p.lab.read()
		if err == io.EOF {
			return p, &ParseError{File: r.path, Line: firstLine, Err: fmt.Errorf("%w: no label for this row: %s is empty", ErrRowCount, c.labelFile)}
		}
		if err != nil {
			return p, err
		}
		p.firstLabel = append([]string(nil), rec...)
		p.nlab, p.ln = len(rec), len(rec)
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
			return p, &ParseError{File: labPath, Line: labLine, Err: fmt.Errorf("%w: %d labels for label shape %v (%d values)", ErrShape, p.ln, c.labelShape, n)}
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
	err = ErrEmpty
	if where != "" {
		err = fmt.Errorf("%w: the file ends %s", ErrEmpty, where)
	}
	line := 1
	if p.data.rows > 0 {
		line, _ = p.data.pos(0)
		line++
	}
	return &ParseError{File: p.data.path, Line: line, Err: err}
}

func (p *pass) close() {
	if p.data != nil {
		p.data.f.Close()
	}
	if p.lab != nil {
		p.lab.f.Close()
	}
}

// fieldCount is the error for a record of f with the wrong number of
// fields.
func (p *pass) fieldCount(f *file, rec []string, want int) error {
	line, col := f.pos(0)
	field := 0
	if len(rec) > want {
		line, col = f.pos(want)
		field = want + 1
	} else if len(rec) > 0 {
		last := len(rec) - 1
		l, c := f.pos(last)
		line, col, field = l, c+len(rec[last]), len(rec)+1
	}
	return &ParseError{File: f.path, Line: line, Column: col, Field: field,
		Err: fmt.Errorf("%w: %d fields, want %d", ErrFieldCount, len(rec), want)}
}

// blockRows is how many rows share one allocation.
const blockRows = 256

// row decodes a data record (and the matching label record, if any).
func (p *pass) row(rec, labRec []string) (Row, error) {
	if len(rec) != p.ncols {
		return Row{}, p.fieldCount(p.data, rec, p.ncols)
	}
	per := p.dn + p.ln
	if len(p.block) < per {
		p.block = make([]float32, per*blockRows)
	}
	buf := p.block[:per:per]
	p.block = p.block[per:]
	line, _ := p.data.pos(0)
	row := Row{Data: buf[:p.dn:p.dn], Label: buf[p.dn:], Line: line}
	for k, i := range p.layout.DataCols {
		v, err := parseNum(rec[i])
		if err != nil {
			return Row{}, p.fieldErr(p.data, i, err)
		}
		row.Data[k] = v
	}
	for k, i := range p.layout.LabelCols {
		v, err := p.parseLabel(rec[i])
		if err != nil {
			return Row{}, p.fieldErr(p.data, i, err)
		}
		row.Label[k] = v
	}
	if p.lab != nil {
		if len(labRec) != p.nlab {
			return Row{}, p.fieldCount(p.lab, labRec, p.nlab)
		}
		for i, s := range labRec {
			v, err := p.parseLabel(s)
			if err != nil {
				return Row{}, p.fieldErr(p.lab, i, err)
			}
			row.Label[i] = v
		}
	}
	return row, nil
}

func (p *pass) fieldErr(f *file, i int, err error) error {
	line, col := f.pos(i)
	return &ParseError{File: f.path, Line: line, Column: col, Field: i + 1, Err: err}
}

// parseNum parses a float32, accepting spaces around it, inf and nan.
func parseNum(s string) (float32, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("%w: empty field", ErrNumber)
	}
	v, err := strconv.ParseFloat(t, 32)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %q is out of the float32 range", ErrNumber, s)
		}
		return 0, fmt.Errorf("%w: %q", ErrNumber, s)
	}
	return float32(v), nil
}

func (p *pass) parseLabel(s string) (float32, error) {
	if p.cfg.classes == nil {
		v, err := parseNum(s)
		if err != nil && strings.TrimSpace(s) != "" {
			err = fmt.Errorf("%w (string labels need Classes)", err)
		}
		return v, err
	}
	v, ok := p.cfg.classes[strings.TrimSpace(s)]
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrClass, s)
	}
	return v, nil
}

// checkEvery is how many rows a pass yields between looks at its context.
const checkEvery = 256

// All starts a pass over the rows.
func (r *Reader) All(ctx context.Context) iter.Seq2[Row, error] {
	return func(yield func(Row, error) bool) {
		p, err := r.start()
		if err != nil {
			yield(Row{}, err)
			return
		}
		defer p.close()
		r.cfg.log.Debug("csv pass", zap.String("file", r.path), zap.String("labels", r.cfg.labelFile),
			zap.Ints("data_cols", p.layout.DataCols), zap.Ints("label_cols", p.layout.LabelCols),
			zap.Ints("data_shape", p.layout.DataShape), zap.Ints("label_shape", p.layout.LabelShape))
		done := ctx.Done()
		rec, labRec := p.first, p.firstLabel
		for n := 0; ; n++ {
			if done != nil && n%checkEvery == 0 {
				select {
				case <-done:
					yield(Row{}, ctx.Err())
					return
				default:
				}
			}
			row, err := p.row(rec, labRec)
			if err != nil {
				yield(Row{}, err)
				return
			}
			if !yield(row, nil) {
				return
			}
			if rec, err = p.data.read(); err != nil {
				if err == io.EOF {
					err = p.checkLabelEnd()
				}
				if err != nil {
					yield(Row{}, err)
				}
				return
			}
			if p.lab != nil {
				if labRec, err = p.lab.read(); err != nil {
					if err == io.EOF {
						line, _ := p.data.pos(0)
						err = &ParseError{File: r.path, Line: line, Err: fmt.Errorf("%w: no label for this row: %s ends after %d rows", ErrRowCount, r.cfg.labelFile, p.lab.rows)}
					}
					yield(Row{}, err)
					return
				}
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
	_, err := p.lab.read()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return err
	}
	line, _ := p.lab.pos(0)
	return &ParseError{File: p.lab.path, Line: line, Err: fmt.Errorf("%w: %s ends after %d rows", ErrRowCount, p.data.path, p.data.rows-p.skipped())}
}

// skipped is the number of data-file records that are not rows.
func (p *pass) skipped() int {
	n := p.cfg.skip
	if p.cfg.header {
		n++
	}
	return n
}
