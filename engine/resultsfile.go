package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// WriteJSON is the results reporter for --out *.json.
func (res Results) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// WriteFileAtomic writes a file via a temporary file in the same directory
// and a rename, so a crash mid-write never leaves a truncated file.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it private
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ReadResults reads a results file, refusing anything that is not a
// kneepoint results file of a known schema, with a one-line reason.
func ReadResults(path string) (Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Results{}, fmt.Errorf("%s: %w", path, err)
	}
	return DecodeResults(path, data)
}

// DecodeResults parses results JSON (named name in errors).
func DecodeResults(name string, data []byte) (Results, error) {
	var probe struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return Results{}, fmt.Errorf("%s: not a kneepoint results file (invalid JSON: %v)", name, err)
	}
	if probe.Schema != SchemaV1 {
		if probe.Schema == "" {
			return Results{}, fmt.Errorf("%s: not a kneepoint results file (no \"schema\" field)", name)
		}
		return Results{}, fmt.Errorf("%s: schema %q is not supported (want %q)", name, probe.Schema, SchemaV1)
	}
	var res Results
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return Results{}, fmt.Errorf("%s: does not match %s: %v", name, SchemaV1, err)
	}
	if err := res.check(); err != nil {
		return Results{}, fmt.Errorf("%s: %v", name, err)
	}
	return res, nil
}

// check validates invariants a reader relies on.
func (res Results) check() error {
	for i, l := range res.Levels {
		if l.Concurrency < 1 {
			return fmt.Errorf("levels[%d].concurrency %d is not positive", i, l.Concurrency)
		}
		if l.Succeeded < 0 || l.Failed < 0 || l.Succeeded+l.Failed != l.Requests {
			return fmt.Errorf("levels[%d]: succeeded + failed != requests", i)
		}
	}
	if res.Knee != nil && (res.Knee.Level < 0 || res.Knee.Level >= len(res.Levels)) {
		return fmt.Errorf("knee.level %d is out of range", res.Knee.Level)
	}
	return nil
}
