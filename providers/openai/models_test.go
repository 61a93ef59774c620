package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func modelsServer(t *testing.T, status int, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const modelList = `{"object":"list","data":[{"id":"meta-llama/Llama-3.1-8B-Instruct","object":"model","created":1,"owned_by":"vllm","root":"meta-llama/Llama-3.1-8B-Instruct","parent":null,"max_model_len":8192},{"id":"test-model","object":"model"}]}`

func TestModelsAndCheck(t *testing.T) {
	good := modelsServer(t, 200, modelList)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><title>Welcome to nginx!</title></html>")
	}))
	defer html.Close()

	tests := []struct {
		name    string
		base    string
		key     string
		model   string
		wantErr string // "" for success
	}{
		{"good", good.URL + "/v1", testKey, "test-model", ""},
		{"no model configured", good.URL + "/v1", testKey, "", ""},
		{"wrong model", good.URL + "/v1", testKey, "gpt-4o",
			`model "gpt-4o" is not served by ` + good.URL + "/v1; available: meta-llama/Llama-3.1-8B-Instruct, test-model"},
		{"wrong key", good.URL + "/v1", "sk-wrong-key-000", "test-model", "the API key was refused (401)"},
		{"unreachable", deadURL + "/v1", testKey, "test-model", "cannot reach " + deadURL + "/v1: connection refused"},
		{"wrong path", good.URL + "/api", testKey, "test-model", "not found (404)"},
		{"not an API", html.URL + "/v1", testKey, "test-model", "did not return JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(WithBaseURL(tt.base), WithAPIKey(tt.key), WithModel(tt.model))
			if err != nil {
				t.Fatal(err)
			}
			err = p.Check(context.Background())
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				ids, err := p.Models(context.Background())
				if err != nil || len(ids) != 2 || ids[1] != "test-model" {
					t.Errorf("Models = %v, %v", ids, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Check = %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), tt.key) {
				t.Errorf("key in %q", err)
			}
		})
	}
}
