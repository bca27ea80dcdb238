package config

import (
	"strings"
	"testing"
)

func TestHTTPListenDefaultOff(t *testing.T) {
	c, err := Parse([]byte("lichess: {}\n"), "config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Listen != "" || c.HTTP.AccessToken != "" {
		t.Fatalf("http default %+v, want off", c.HTTP)
	}
	if w := c.HTTPWarning(); w != "" {
		t.Errorf("warning without a server: %q", w)
	}
	if !strings.Contains(c.Summary(), "http:") || !strings.Contains(c.Summary(), "off") {
		t.Errorf("summary has no http line:\n%s", c.Summary())
	}
}

func TestHTTPListenValidation(t *testing.T) {
	for _, tc := range []struct {
		yaml, wantErr string
	}{
		{"http: {listen: \"127.0.0.1:8080\"}", ""},
		{"http: {listen: \"localhost:0\"}", ""},
		{"http: {listen: \"[::1]:9100\"}", ""},
		{"http: {listen: \":8080\"}", ""},
		{"http: {listen: \"bot.example.org:8080\"}", ""},
		{"http: {listen: \"127.0.0.1\"}", "http.listen: \"127.0.0.1\" is not host:port"},
		{"http: {listen: \"127.0.0.1:http\"}", "http.listen: port \"http\""},
		{"http: {listen: \"127.0.0.1:70000\"}", "from 0 to 65535"},
		{"http: {listen: \"bad host!:80\"}", "neither an IP address nor a host name"},
		{"http: {access_token: \"0123456789abcdef\"}", "http.access_token: is set but http.listen is not"},
		{"http: {listen: \":8080\", access_token: short}", "at least 16 characters"},
	} {
		_, err := Parse([]byte(tc.yaml+"\n"), "config.yaml")
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.yaml, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.yaml, err, tc.wantErr)
		}
	}
}

// Beyond loopback the server is warned about, louder without a token;
// the token itself is never in the warnings, the summary or the log
// object.
func TestHTTPWarningsAndSummary(t *testing.T) {
	const tok = "s3cretWEBtoken-0123456789"
	for _, tc := range []struct {
		listen, token string
		warn, loud    bool
	}{
		{"127.0.0.1:8080", "", false, false},
		{"localhost:8080", tok, false, false},
		{"[::1]:8080", "", false, false},
		{":8080", "", true, true},
		{"0.0.0.0:8080", tok, true, false},
		{"192.168.1.5:8080", "", true, true},
	} {
		c := Default()
		c.HTTP = HTTP{Listen: tc.listen, AccessToken: tc.token}
		if err := c.Validate(); err != nil {
			t.Fatalf("%+v: %v", c.HTTP, err)
		}
		w := strings.Join(c.Warnings(), "\n")
		if got := strings.Contains(w, "reachable from other machines"); got != tc.warn {
			t.Errorf("%s: warned %v, want %v (%q)", tc.listen, got, tc.warn, w)
		}
		if got := strings.Contains(w, "ANYONE"); got != tc.loud {
			t.Errorf("%s: loud warning %v, want %v (%q)", tc.listen, got, tc.loud, w)
		}
		sum := c.Summary()
		if !strings.Contains(sum, "http:") || !strings.Contains(sum, tc.listen) {
			t.Errorf("%s: summary lacks the http line:\n%s", tc.listen, sum)
		}
		if strings.Contains(w, tok) || strings.Contains(sum, tok) || strings.Contains(c.String(), tok) {
			t.Errorf("%s: the access token is shown", tc.listen)
		}
	}
}

func TestListenLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:80": true, "127.1.2.3:80": true, "[::1]:80": true, "localhost:80": true, "LOCALHOST:1": true,
		":80": false, "0.0.0.0:80": false, "[::]:80": false, "10.0.0.1:80": false, "example.org:80": false, "nonsense": false,
	} {
		if got := ListenLoopback(addr); got != want {
			t.Errorf("ListenLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
