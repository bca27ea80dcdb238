package lichessbot

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ponderosa-chess/ponderosa/config"
)

var kindTitles = map[Kind]string{
	KindChanged:      "Carried over with a difference",
	KindNoEquivalent: "No equivalent in ponderosa, left out",
	KindLater:        "Not yet supported by ponderosa, left out",
	KindUnknown:      "Unknown to lichess-bot " + Version + ", left out",
	KindSame:         "No key in ponderosa, but nothing lost: ponderosa behaves so anyway",
}

// WriteReport writes the report of the import for the operator: how to
// hand over the token, every setting not carried over as it was (grouped
// by Kind), and what ponderosa's validation says about the result. name is
// the lichess-bot file.
func (r *Result) WriteReport(w io.Writer, name string) error {
	pr := &printer{w: w}
	pr.f("Translated the lichess-bot configuration %s into ponderosa's (on standard output).\n", name)
	pr.f("\nToken: ")
	if r.HasToken {
		pr.f("the token in %s is NOT copied into the ponderosa configuration.\n", name)
	} else {
		pr.f("%s holds none (lichess-bot may have read it from $%s).\n", name, config.TokenEnv)
	}
	pr.f("  Give ponderosa the token one of these ways (it looks in this order):\n")
	pr.f("  - the environment variable %s, which lichess-bot reads too;\n", config.TokenEnv)
	pr.f("  - under systemd, the credential %q: LoadCredential=%s:/etc/ponderosa/token in the unit;\n",
		config.CredentialName, config.CredentialName)
	pr.f("  - a file holding only the token (chmod 600), named by lichess.token_file.\n")

	for _, k := range []Kind{KindChanged, KindNoEquivalent, KindLater, KindUnknown, KindSame} {
		var notes []Note
		for _, n := range r.Notes {
			if n.Kind == k {
				notes = append(notes, n)
			}
		}
		if len(notes) == 0 {
			continue
		}
		pr.f("\n%s (%d):\n", kindTitles[k], len(notes))
		for _, n := range notes {
			where := name
			if n.Line > 0 {
				where += " line " + strconv.Itoa(n.Line)
			}
			pr.f("  %s: %s: %s\n", where, n.Key, n.Msg)
		}
	}

	if len(r.Problems) > 0 {
		pr.f("\nThe result does NOT pass check-config yet (%d problem(s)); fix them in the ponderosa file:\n", len(r.Problems))
		for _, p := range r.Problems {
			pr.f("  %s\n", p.Error())
		}
	} else {
		pr.f("\nThe result passes check-config's checks of the file. Save it and run check-config on it, which also\n" +
			"looks for the token and starts an external engine that must play chess960 or another variant.\n")
		for _, wn := range r.Warnings {
			pr.f("  warning: %s\n", wn)
		}
	}
	return pr.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}
