package simserver

import (
	"encoding/json"
	"net/http"
)

// modelObject is one entry of /v1/models.
type modelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *server) modelObject() modelObject {
	return modelObject{ID: s.model, Object: "model", Created: s.started.Unix(), OwnedBy: "kneepoint-sim"}
}

// models serves GET /v1/models in OpenAI's list format.
func (s *server) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, struct {
		Object string        `json:"object"`
		Data   []modelObject `json:"data"`
	}{"list", []modelObject{s.modelObject()}})
}

// model1 serves GET /v1/models/{id}.
func (s *server) model1(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != s.model {
		writeError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			"The model `"+id+"` does not exist or you do not have access to it.", strPtr("model"))
		return
	}
	writeJSON(w, s.modelObject())
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Write(append(b, '\n'))
}
