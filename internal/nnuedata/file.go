package nnuedata

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// File layout: a HeaderSize-byte header, then Header.Records records of
// RecordSize bytes. Bytes after them are the uncommitted tail of a writer
// that was killed between writing records and updating the header: readers
// ignore them and OpenAppend cuts them off.
//
//	bytes  0–7   magic "PNDRDATA"
//	bytes  8–9   version, uint16 little-endian (Version)
//	bytes 10–11  record size, uint16 little-endian (RecordSize)
//	bytes 12–15  flags, uint32, 0 (reserved)
//	bytes 16–23  records, uint64 little-endian: committed records
//	bytes 24–27  games, uint32 little-endian: complete games they come from (0 when unknown)
//	bytes 28–31  settings, uint32 little-endian: fingerprint of the generator's settings (0: none)
const (
	Magic      = "PNDRDATA"
	Version    = 1
	HeaderSize = 32
)

// Header is what the file header says beyond its fixed fields.
type Header struct {
	Records  uint64 // committed records
	Games    uint32 // complete games the records come from; 0 when unknown (converted data)
	Settings uint32 // fingerprint of the generation settings; 0 when none
}

func (h Header) marshal() [HeaderSize]byte {
	var b [HeaderSize]byte
	copy(b[0:8], Magic)
	binary.LittleEndian.PutUint16(b[8:10], Version)
	binary.LittleEndian.PutUint16(b[10:12], RecordSize)
	binary.LittleEndian.PutUint64(b[16:24], h.Records)
	binary.LittleEndian.PutUint32(b[24:28], h.Games)
	binary.LittleEndian.PutUint32(b[28:32], h.Settings)
	return b
}

func unmarshalHeader(b []byte) (Header, error) {
	if string(b[0:8]) != Magic {
		return Header{}, corrupt("magic %q, want %q (not a ponderosa NNUE data file)", b[0:8], Magic)
	}
	if v := binary.LittleEndian.Uint16(b[8:10]); v != Version {
		return Header{}, corrupt("version %d, this build reads version %d", v, Version)
	}
	if n := binary.LittleEndian.Uint16(b[10:12]); n != RecordSize {
		return Header{}, corrupt("record size %d, want %d", n, RecordSize)
	}
	if f := binary.LittleEndian.Uint32(b[12:16]); f != 0 {
		return Header{}, corrupt("unknown flags %#x", f)
	}
	return Header{
		Records:  binary.LittleEndian.Uint64(b[16:24]),
		Games:    binary.LittleEndian.Uint32(b[24:28]),
		Settings: binary.LittleEndian.Uint32(b[28:32]),
	}, nil
}

// ReadHeader reads and checks a file header. Errors wrap ErrCorrupt (or
// io.ErrUnexpectedEOF too when the header is cut short).
func ReadHeader(r io.Reader) (Header, error) {
	var b [HeaderSize]byte
	if n, err := io.ReadFull(r, b[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Header{}, fmt.Errorf("%w: header cut short after %d of %d bytes: %w", ErrCorrupt, n, HeaderSize, io.ErrUnexpectedEOF)
		}
		return Header{}, fmt.Errorf("read header: %w", err)
	}
	return unmarshalHeader(b[:])
}

// Reader reads the committed records of a file in order.
type Reader struct {
	r        *bufio.Reader
	c        io.Closer
	h        Header
	read     uint64
	trailing int64
	name     string
}

// NewReader reads the header from r. A file cut short is reported by Next.
func NewReader(r io.Reader) (*Reader, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	return &Reader{r: bufio.NewReaderSize(r, 1<<16), h: h, name: "input"}, nil
}

// Open opens a file and checks that it holds every record its header
// counts. Close it when done.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open NNUE data: %w", err)
	}
	fail := func(err error) (*Reader, error) {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	r, err := NewReader(f)
	if err != nil {
		return fail(err)
	}
	want := int64(HeaderSize) + int64(r.h.Records)*RecordSize
	if r.h.Records > uint64(st.Size())/RecordSize || st.Size() < want {
		return fail(fmt.Errorf("%w: the header counts %d records (%d bytes) but the file has %d bytes: truncated",
			ErrCorrupt, r.h.Records, want, st.Size()))
	}
	r.trailing = st.Size() - want
	r.c, r.name = f, path
	return r, nil
}

// Header returns the file header.
func (r *Reader) Header() Header { return r.h }

// Trailing returns the bytes after the committed records that Open found
// (left by an interrupted writer; they are not read).
func (r *Reader) Trailing() int64 { return r.trailing }

// Next reads the next record into rec. It returns io.EOF after the last
// committed record, and an error wrapping ErrCorrupt and
// io.ErrUnexpectedEOF when the data ends before it. It does not validate
// the record (see Record.Validate).
func (r *Reader) Next(rec *Record) error {
	if r.read >= r.h.Records {
		return io.EOF
	}
	if n, err := io.ReadFull(r.r, rec[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: %w: record %d of %d cut short after %d bytes: %w", r.name, ErrCorrupt, r.read, r.h.Records, n, io.ErrUnexpectedEOF)
		}
		return fmt.Errorf("%s: read record %d: %w", r.name, r.read, err)
	}
	r.read++
	return nil
}

// Close closes the file opened by Open (a no-op for NewReader).
func (r *Reader) Close() error {
	if r.c == nil {
		return nil
	}
	return r.c.Close()
}

// Writer appends records to a file. Records reach the file in order and
// become visible to readers when the header is updated after them
// (Commit, WriteGame, Close), so a writer stopped at any point never
// leaves a half record among the committed ones.
type Writer struct {
	f    *os.File
	h    Header
	off  int64  // where the next buffered byte goes
	buf  []byte // records not yet written
	path string
	n    uint64 // records written or buffered, committed or not
}

// Create creates a new file (an error if it exists) with the given
// settings fingerprint.
func Create(path string, settings uint32) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create NNUE data: %w", err)
	}
	w := &Writer{f: f, h: Header{Settings: settings}, off: HeaderSize, path: path}
	if err := w.writeHeader(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// OpenAppend opens a file to add records after its committed ones,
// creating it when it does not exist. The file's settings fingerprint must
// equal settings. Bytes after the committed records (an interrupted
// writer's tail) are cut off.
func OpenAppend(path string, settings uint32) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Create(path, settings)
	}
	if err != nil {
		return nil, fmt.Errorf("open NNUE data: %w", err)
	}
	fail := func(err error) (*Writer, error) {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return fail(err)
	}
	h, err := ReadHeader(f)
	if err != nil {
		return fail(err)
	}
	end := int64(HeaderSize) + int64(h.Records)*RecordSize
	if h.Records > uint64(st.Size())/RecordSize || st.Size() < end {
		return fail(fmt.Errorf("%w: the header counts %d records (%d bytes) but the file has %d bytes: truncated",
			ErrCorrupt, h.Records, end, st.Size()))
	}
	if h.Settings != settings {
		return fail(fmt.Errorf("written with other settings (fingerprint %08x, these give %08x): use the same settings or another file", h.Settings, settings))
	}
	if st.Size() > end {
		if err := f.Truncate(end); err != nil {
			return fail(fmt.Errorf("cut the uncommitted tail: %w", err))
		}
	}
	return &Writer{f: f, h: h, off: end, path: path, n: h.Records}, nil
}

// Header returns the header as last committed.
func (w *Writer) Header() Header { return w.h }

// Write buffers records; they are committed by the next Commit, WriteGame
// or Close.
func (w *Writer) Write(recs []Record) error {
	for i := range recs {
		w.buf = append(w.buf, recs[i][:]...)
	}
	w.n += uint64(len(recs))
	if len(w.buf) >= 1<<20 {
		return w.flush()
	}
	return nil
}

// WriteGame writes the records of one complete game and commits them with
// the game count.
func (w *Writer) WriteGame(recs []Record) error {
	if err := w.Write(recs); err != nil {
		return err
	}
	return w.commit(1)
}

// Commit writes the buffered records, then the header that counts them.
func (w *Writer) Commit() error { return w.commit(0) }

func (w *Writer) commit(games uint32) error {
	if err := w.flush(); err != nil {
		return err
	}
	w.h.Records = w.n
	w.h.Games += games
	return w.writeHeader()
}

func (w *Writer) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if _, err := w.f.WriteAt(w.buf, w.off); err != nil {
		return fmt.Errorf("write NNUE data %s: %w", w.path, err)
	}
	w.off += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}

func (w *Writer) writeHeader() error {
	b := w.h.marshal()
	if _, err := w.f.WriteAt(b[:], 0); err != nil {
		return fmt.Errorf("write NNUE data header %s: %w", w.path, err)
	}
	return nil
}

// Close commits what is buffered, syncs and closes the file.
func (w *Writer) Close() error {
	err := w.Commit()
	if err == nil {
		if err = w.f.Sync(); err != nil {
			err = fmt.Errorf("sync NNUE data %s: %w", w.path, err)
		}
	}
	if cerr := w.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close NNUE data %s: %w", w.path, cerr)
	}
	return err
}
