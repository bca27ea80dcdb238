// Command ponderosa is a Lichess bot with its own chess engine.
package main

import (
	"fmt"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	switch os.Args[1] {
	case "version":
		fmt.Println("ponderosa", version)
	default:
		fmt.Fprintf(os.Stderr, "ponderosa: unknown command %q\n", os.Args[1])
		usage()
		os.Exit(2)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: ponderosa <command> [flags]\n\ncommands:\n  version   print the version")
}
