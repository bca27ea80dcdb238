module github.com/ponderosa-chess/ponderosa

go 1.26.8

require (
	github.com/coreos/go-systemd/v22 v22.7.0
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20
	github.com/notnil/chess v1.10.0
	github.com/rs/zerolog v1.35.1
	golang.org/x/oauth2 v0.37.0
	golang.org/x/sys v0.29.0 // indirect
	gopkg.in/yaml.v3 v3.0.1
)
