package e2e

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// maxRequests bounds every fake server: an agent that keeps asking past it
// gets errors, so no test can spin forever against a fake model.
const maxRequests = 300

// fakeServer is the loopback HTTP server under both fake model APIs.
type fakeServer struct {
	t     *testing.T
	srv   *httptest.Server
	nonce string // makes ids unique across servers (a resumed session meets a new server)
	n     atomic.Int64

	mu         sync.Mutex
	unexpected []string // requests for paths the fake does not serve
}

// startFakeServer listens on 127.0.0.1 only, never on any other address.
func startFakeServer(t *testing.T, h http.Handler) *fakeServer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listening on loopback: %v", err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	f := &fakeServer{t: t, nonce: hex.EncodeToString(b)}
	f.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: h}}
	f.srv.Start()
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the server's base URL, http://127.0.0.1:<port>.
func (f *fakeServer) URL() string { return f.srv.URL }

// admit counts a request and refuses it past maxRequests.
func (f *fakeServer) admit(w http.ResponseWriter) bool {
	if f.n.Add(1) > maxRequests {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"fake server: request cap reached"}}`, http.StatusBadRequest)
		return false
	}
	return true
}

func (f *fakeServer) notFound(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.unexpected = append(f.unexpected, r.Method+" "+r.URL.Path)
	f.mu.Unlock()
	http.NotFound(w, r)
}

// Unexpected lists the requests the fake did not know how to answer.
func (f *fakeServer) Unexpected() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.unexpected...)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing each one.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

func (s *sse) event(name string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	if s.f != nil {
		s.f.Flush()
	}
}
