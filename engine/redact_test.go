package engine

import "testing"

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"},
		{"https://user:sk-secret@api.example.com/v1?api-key=sk-secret#x", "https://api.example.com/v1"},
		{"user:sk-secret@host/v1", "host/v1"},
		{"host/v1?key=sk-secret", "host/v1"},
		{"://bad@x?k=sk-secret", "x"},
	}
	for _, tt := range tests {
		if got := RedactURL(tt.in); got != tt.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
