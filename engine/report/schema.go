package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/kneepoint/kneepoint/engine"
)

// SchemaID is where the generated schema lives in the repository.
const SchemaID = "https://github.com/kneepoint/kneepoint/blob/main/docs/results.schema.json"

// ResultsSchema is the JSON Schema (draft 2020-12) of a results file
// (kneepoint.results/v1), derived by reflection from engine.Results and its
// json tags, so the documented schema cannot drift from the code: a test
// regenerates docs/results.schema.json and fails if the committed file
// differs.
//
// The mapping follows encoding/json: a field without omitempty is required;
// a nil slice, map or pointer without omitempty encodes as null, so its type
// admits null; with omitempty a nil value is left out, so the field is
// optional and never null. Every object is closed (additionalProperties:
// false), as engine.DecodeResults refuses unknown fields.
func ResultsSchema() ([]byte, error) {
	g := schemaGen{defs: map[string]any{}}
	root, err := g.of(reflect.TypeFor[engine.Results](), false)
	if err != nil {
		return nil, err
	}
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         SchemaID,
		"title":       "kneepoint results file (" + engine.SchemaV1 + ")",
		"description": "What kneepoint --out *.json writes. Generated from the Go types in engine/ by engine/report.ResultsSchema; field meanings and units are in docs/results.md.",
		"$ref":        root["$ref"],
		"$defs":       g.defs,
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

// schemaGen collects one definition per named struct type.
type schemaGen struct {
	defs map[string]any
}

// of is the schema of a value of type t; nullable says a Go nil encodes as
// JSON null here (no omitempty).
func (g *schemaGen) of(t reflect.Type, nullable bool) (map[string]any, error) {
	orNull := func(typ string) any {
		if nullable {
			return []any{typ, "null"}
		}
		return typ
	}
	if t == reflect.TypeFor[time.Time]() {
		return map[string]any{"type": "string", "format": "date-time"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, nil
	case reflect.String:
		return map[string]any{"type": "string"}, nil
	case reflect.Pointer:
		elem, err := g.of(t.Elem(), false)
		if err != nil || !nullable {
			return elem, err
		}
		return map[string]any{"anyOf": []any{elem, map[string]any{"type": "null"}}}, nil
	case reflect.Slice:
		items, err := g.of(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": orNull("array"), "items": items}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("schema: %s: only string-keyed maps are supported", t)
		}
		vals, err := g.of(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": orNull("object"), "additionalProperties": vals}, nil
	case reflect.Struct:
		if err := g.define(t); err != nil {
			return nil, err
		}
		return map[string]any{"$ref": "#/$defs/" + t.Name()}, nil
	}
	return nil, fmt.Errorf("schema: %s: unsupported kind %s", t, t.Kind())
}

// define adds the definition of struct type t, once.
func (g *schemaGen) define(t reflect.Type) error {
	if t.Name() == "" {
		return fmt.Errorf("schema: anonymous struct %s is not supported", t)
	}
	if _, done := g.defs[t.Name()]; done {
		return nil
	}
	g.defs[t.Name()] = nil // placeholder: recursion terminates
	props := map[string]any{}
	required := []any{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		if f.Anonymous {
			return fmt.Errorf("schema: %s.%s: embedded fields are not supported", t.Name(), f.Name)
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		omitempty := hasOpt(opts, "omitempty") || hasOpt(opts, "omitzero")
		if hasOpt(opts, "string") {
			return fmt.Errorf("schema: %s.%s: the ,string option is not supported", t.Name(), f.Name)
		}
		s, err := g.of(f.Type, !omitempty)
		if err != nil {
			return err
		}
		if t == reflect.TypeFor[engine.Results]() && name == "schema" {
			s["const"] = engine.SchemaV1
		}
		props[name] = s
		if !omitempty {
			required = append(required, name)
		}
	}
	g.defs[t.Name()] = map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
	return nil
}

func hasOpt(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}
