package report

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kneepoint/kneepoint/engine"
)

// JSON is the full results file (schema kneepoint.results/v1).
func JSON(res engine.Results) Reporter { return res.WriteJSON }

// ForPath picks the reporter for an output file from its extension: .json
// (results), .md (report), .csv (per-level table), .svg or .png (plot).
func ForPath(path string, res engine.Results) (Reporter, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".json":
		return JSON(res), nil
	case ".md":
		return Markdown(res), nil
	case ".csv":
		return CSV(res), nil
	case ".svg", ".png":
		return Plot(res, ext[1:]), nil
	}
	return nil, formatError(path, ".json, .md, .csv, .svg or .png")
}

// CompareForPath picks the comparison reporter for an output file from its
// extension: .md (table), .csv (long form), .svg or .png (plot).
func CompareForPath(path string, runs []engine.Results, names []string) (Reporter, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".md":
		return Compare(runs, names), nil
	case ".csv":
		return CompareCSV(runs, names), nil
	case ".svg", ".png":
		return ComparePlot(runs, names, ext[1:]), nil
	}
	return nil, formatError(path, ".md, .csv, .svg or .png")
}

func formatError(path, want string) error {
	ext := filepath.Ext(path)
	if ext == "" {
		return fmt.Errorf("%s: no file extension to choose the format from (want %s)", path, want)
	}
	return fmt.Errorf("%s: unsupported output format %q (want %s)", path, ext, want)
}
