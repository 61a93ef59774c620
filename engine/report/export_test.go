package report

// ValidateJSON exposes the test-only schema validator to the external
// test package (schema_e2e_test.go).
var ValidateJSON = validateJSON
