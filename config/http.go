package config

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// ListenLoopback reports whether addr (host:port) is served on the
// loopback interface only: its host is a loopback IP address or
// "localhost". A host left out (":8080") means every interface.
func ListenLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// httpServer checks the http section.
func (v *validator) httpServer() {
	h := v.c.HTTP
	if h.Listen == "" {
		if h.AccessToken != "" {
			v.add("http.access_token", "is set but http.listen is not, so there is no server to protect: set http.listen (e.g. \"127.0.0.1:8080\") or remove the token")
		}
		return
	}
	host, port, err := net.SplitHostPort(h.Listen)
	if err != nil {
		v.add("http.listen", "%q is not host:port (%v): write e.g. \"127.0.0.1:8080\", or \"[::1]:8080\" for IPv6", h.Listen, err)
		return
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		v.add("http.listen", "port %q in %q must be a number from 0 to 65535", port, h.Listen)
	}
	if host != "" && !strings.EqualFold(host, "localhost") {
		if _, err := netip.ParseAddr(host); err != nil && !validHostname(host) {
			v.add("http.listen", "host %q in %q is neither an IP address nor a host name", host, h.Listen)
		}
	}
	if t := h.AccessToken; t != "" && (len(t) < 16 || strings.ContainsAny(t, " \t\r\n")) {
		v.add("http.access_token", "must be at least 16 characters without spaces (e.g. the output of `openssl rand -hex 16`)")
	}
}

// validHostname reports whether s is a DNS name of letters, digits, '-'
// and '.'.
func validHostname(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// HTTPWarning is the warning for an HTTP server reachable beyond this
// machine, "" when it is not (http.listen unset or on loopback only).
func (c *Config) HTTPWarning() string {
	h := c.HTTP
	if h.Listen == "" || ListenLoopback(h.Listen) {
		return ""
	}
	where := fmt.Sprintf("http.listen %q is reachable from other machines", h.Listen)
	if h.AccessToken == "" {
		return where + " and http.access_token is not set: ANYONE WHO CAN REACH IT SEES THE BOT'S GAMES AND METRICS; set an access token, or listen on 127.0.0.1"
	}
	return where + " (an access token is asked; it travels in clear text: put a TLS proxy in front)"
}

// httpSummary is check-config's line for the http section.
func (c *Config) httpSummary() string {
	h := c.HTTP
	if h.Listen == "" {
		return "off"
	}
	s := "on " + h.Listen
	if ListenLoopback(h.Listen) {
		s += " (this machine only)"
	} else {
		s += " (REACHABLE FROM OTHER MACHINES)"
	}
	if h.AccessToken != "" {
		s += ", access token asked"
	} else {
		s += ", no access token"
	}
	return s + ": /healthz, /metrics"
}
