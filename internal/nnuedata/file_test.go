package nnuedata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// someRecords returns n distinct valid records.
func someRecords(t *testing.T, n int) []Record {
	t.Helper()
	ps := positions(t)
	out := make([]Record, n)
	for i := range out {
		out[i] = Encode(ps[i%len(ps)], i-n/2, Result(i%3))
	}
	return out
}

func readAll(t *testing.T, path string) (Header, []Record) {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []Record
	for {
		var rec Record
		err := r.Next(&rec)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return r.Header(), out
}

func TestFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.bin")
	recs := someRecords(t, 100)
	w, err := Create(path, 0xabcd1234)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGame(recs[:30]); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGame(nil); err != nil { // a game with no kept position still counts
		t.Fatal(err)
	}
	if err := w.WriteGame(recs[30:70]); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(recs[70:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, got := readAll(t, path)
	if h != (Header{Records: 100, Games: 3, Settings: 0xabcd1234}) {
		t.Errorf("header %+v", h)
	}
	if len(got) != len(recs) {
		t.Fatalf("read %d records, wrote %d", len(got), len(recs))
	}
	for i := range got {
		if got[i] != recs[i] {
			t.Fatalf("record %d differs", i)
		}
	}
	st, _ := os.Stat(path)
	if st.Size() != HeaderSize+100*RecordSize {
		t.Errorf("file size %d, want %d", st.Size(), HeaderSize+100*RecordSize)
	}
	if _, err := Create(path, 0); err == nil {
		t.Error("Create over an existing file: no error")
	}
}

func TestOpenAppendContinues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.bin")
	recs := someRecords(t, 50)
	w, err := OpenAppend(path, 7) // creates
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGame(recs[:20]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenAppend(path, 8); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("append with other settings: %v", err)
	}
	w, err = OpenAppend(path, 7)
	if err != nil {
		t.Fatal(err)
	}
	if h := w.Header(); h.Records != 20 || h.Games != 1 {
		t.Errorf("reopened header %+v", h)
	}
	if err := w.WriteGame(recs[20:]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h, got := readAll(t, path)
	if h.Records != 50 || h.Games != 2 || len(got) != 50 || got[0] != recs[0] || got[49] != recs[49] {
		t.Errorf("after append: header %+v, %d records", h, len(got))
	}
}

// A writer killed after writing records but before the header that counts
// them leaves a tail: readers skip it, OpenAppend cuts it off.
func TestUncommittedTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.bin")
	recs := someRecords(t, 10)
	w, err := Create(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGame(recs[:4]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.Write(recs[4][:])
	f.Write(recs[5][:13]) // half a record
	f.Close()

	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Trailing() != RecordSize+13 {
		t.Errorf("Trailing = %d, want %d", r.Trailing(), RecordSize+13)
	}
	r.Close()
	if _, got := readAll(t, path); len(got) != 4 {
		t.Errorf("read %d records, want the 4 committed", len(got))
	}
	w, err = OpenAppend(path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteGame(recs[6:8]); err != nil {
		t.Fatal(err)
	}
	w.Close()
	h, got := readAll(t, path)
	if h.Records != 6 || len(got) != 6 || got[4] != recs[6] {
		t.Errorf("after append over a tail: %+v, %d records", h, len(got))
	}
	if st, _ := os.Stat(path); st.Size() != HeaderSize+6*RecordSize {
		t.Errorf("size %d", st.Size())
	}
}

func TestCorruptFiles(t *testing.T) {
	dir := t.TempDir()
	good := Header{Records: 3, Games: 1}.marshal()
	body := make([]byte, 0, 3*RecordSize)
	for _, r := range someRecords(t, 3) {
		body = append(body, r[:]...)
	}
	with := func(change func(h []byte)) []byte {
		h := good
		change(h[:])
		return append(h[:], body...)
	}
	for _, tt := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "header cut short after 0 of 32 bytes", nil},
		{"short header", "header cut short after 10 of 32 bytes", good[:10]},
		{"magic", "not a ponderosa NNUE data file", with(func(h []byte) { copy(h, "PK\x03\x04xxxx") })},
		{"version", "version 9, this build reads version 1", with(func(h []byte) { h[8] = 9 })},
		{"record size", "record size 40, want 32", with(func(h []byte) { h[10] = 40 })},
		{"flags", "unknown flags", with(func(h []byte) { h[12] = 1 })},
		{"truncated", "truncated", append(good[:], body[:2*RecordSize+5]...)},
		{"huge count", "truncated", with(func(h []byte) { binary.LittleEndian.PutUint64(h[16:], 1<<62) })},
	} {
		path := filepath.Join(dir, tt.name)
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for what, open := range map[string]func() error{
			"Open":       func() error { _, err := Open(path); return err },
			"OpenAppend": func() error { _, err := OpenAppend(path, 0); return err },
		} {
			err := open()
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s %s: error %v, want ErrCorrupt naming the file and %q", what, tt.name, err, tt.want)
			}
		}
	}

	// A stream cut short: NewReader cannot see the size, Next says so.
	r, err := NewReader(bytes.NewReader(append(good[:], body[:RecordSize+7]...)))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if err := r.Next(&rec); err != nil {
		t.Fatal(err)
	}
	err = r.Next(&rec)
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "record 1 of 3 cut short after 7 bytes") {
		t.Errorf("cut stream: %v", err)
	}
}
