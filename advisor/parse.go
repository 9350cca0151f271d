package advisor

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// ParseAdvisories reads back the notes of a message [FormatAdvisories]
// wrote: each <advisory> element's advisor and severity attributes and its
// body, unescaped and trimmed, in order. It reports false, with the notes
// read so far, when text holds anything else than advisory elements and
// white space, or is not well formed.
func ParseAdvisories(text string) ([]Advice, bool) {
	d := xml.NewDecoder(strings.NewReader(text))
	var out []Advice
	for {
		tok, err := d.Token()
		if err != nil {
			// io.EOF after whole elements is the end; anything else is
			// text that is not (only) advisories.
			return out, errors.Is(err, io.EOF) && len(out) > 0
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Local != "advisory" {
				return out, false
			}
			var el struct {
				Advisor  string `xml:"advisor,attr"`
				Severity string `xml:"severity,attr"`
				Body     string `xml:",chardata"`
			}
			if err := d.DecodeElement(&el, &t); err != nil {
				return out, false
			}
			out = append(out, Advice{Note: strings.TrimSpace(el.Body), Severity: Severity(el.Severity), Advisor: el.Advisor})
		case xml.CharData:
			if strings.TrimSpace(string(t)) != "" {
				return out, false
			}
		default:
			return out, false
		}
	}
}
