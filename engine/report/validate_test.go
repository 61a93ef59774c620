package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// validateJSON checks a JSON document against a JSON Schema, for the subset
// of draft 2020-12 that ResultsSchema generates: $ref to local $defs,
// anyOf, type (a name or a list), const, format date-time, properties,
// required, additionalProperties (false or a schema) and items. A keyword
// outside the subset is an error, so the generator cannot start emitting
// something this validator silently ignores.
func validateJSON(schema, doc []byte) error {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("schema: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("document: %v", err)
	}
	vd := validator{root: root}
	vd.check(root, v, "$")
	if len(vd.errs) > 0 {
		return fmt.Errorf("%d schema violations:\n  %s", len(vd.errs), strings.Join(vd.errs, "\n  "))
	}
	return nil
}

type validator struct {
	root map[string]any
	errs []string
}

func (vd *validator) fail(path, format string, args ...any) {
	vd.errs = append(vd.errs, path+": "+fmt.Sprintf(format, args...))
}

// annotations carry no constraint.
func isAnnotation(k string) bool {
	switch k {
	case "$schema", "$id", "$defs", "title", "description", "$comment":
		return true
	}
	return false
}

func (vd *validator) check(s map[string]any, v any, path string) {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch k {
		case "$ref", "anyOf", "type", "const", "format", "properties", "required", "additionalProperties", "items":
		default:
			if !isAnnotation(k) {
				vd.fail(path, "schema keyword %q is outside the validator's subset", k)
			}
		}
	}
	if ref, ok := s["$ref"].(string); ok {
		name, found := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := vd.root["$defs"].(map[string]any)
		def, ok := defs[name].(map[string]any)
		if !found || !ok {
			vd.fail(path, "unresolvable $ref %q", ref)
			return
		}
		vd.check(def, v, path)
	}
	if alts, ok := s["anyOf"].([]any); ok {
		matched := false
		for _, a := range alts {
			sub := validator{root: vd.root}
			sub.check(a.(map[string]any), v, path)
			if len(sub.errs) == 0 {
				matched = true
				break
			}
		}
		if !matched {
			vd.fail(path, "matches no alternative of anyOf")
		}
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		if !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
			vd.fail(path, "%s is not of type %v", describe(v), types)
			return
		}
	}
	if c, ok := s["const"]; ok && !reflect.DeepEqual(c, v) {
		vd.fail(path, "%s is not the constant %v", describe(v), c)
	}
	if f, ok := s["format"].(string); ok {
		str, isStr := v.(string)
		switch {
		case f != "date-time":
			vd.fail(path, "unknown format %q", f)
		case isStr:
			if _, err := time.Parse(time.RFC3339Nano, str); err != nil {
				vd.fail(path, "%q is not an RFC 3339 date-time", str)
			}
		}
	}
	obj, isObj := v.(map[string]any)
	if isObj {
		props, _ := s["properties"].(map[string]any)
		if req, ok := s["required"].([]any); ok {
			for _, r := range req {
				if _, ok := obj[r.(string)]; !ok {
					vd.fail(path, "required property %q is missing", r)
				}
			}
		}
		names := make([]string, 0, len(obj))
		for k := range obj {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if ps, ok := props[k]; ok {
				vd.check(ps.(map[string]any), obj[k], path+"."+k)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case bool:
				if !ap {
					vd.fail(path, "property %q is not allowed", k)
				}
			case map[string]any:
				vd.check(ap, obj[k], path+"."+k)
			}
		}
	}
	if arr, isArr := v.([]any); isArr {
		if items, ok := s["items"].(map[string]any); ok {
			for i, x := range arr {
				vd.check(items, x, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
}

// hasType reports whether a decoded (UseNumber) JSON value has the JSON
// Schema type t; an integer is a number with no fractional part.
func hasType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		r, ok := new(big.Rat).SetString(n.String())
		return ok && r.IsInt()
	}
	return false
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("string %q", v)
	case json.Number:
		return "number " + v.String()
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T %v", v, v)
}
