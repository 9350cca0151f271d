package history_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"testing"

	"github.com/vigil-dev/vigil/history"
)

// An Azure shared access signature (a SAS URL's or connection string's
// sig=, the HMAC-SHA256 that is the credential) is redacted, escaped in
// a URL or not; a sig= that is no such signature stays (issue 28's
// follow-up to AccountKey=).
func TestRedactAzureSASSignature(t *testing.T) {
	mac := hmac.New(sha256.New, []byte("made up for the test"))
	mac.Write([]byte("sv=2022-11-02"))
	sig := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	escaped := url.QueryEscape(sig)
	r := history.NewRedactor(nil, nil)
	for _, tt := range []struct{ name, in, want string }{
		{"blob SAS URL",
			"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2027-01-01T00:00:00Z&spr=https&sig=" + escaped,
			"https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2027-01-01T00:00:00Z&spr=https&sig=[REDACTED:azure-sas-signature]"},
		{"connection string",
			"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig=" + escaped + "&spr=https",
			"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig=[REDACTED:azure-sas-signature]&spr=https"},
		{"service bus token, unescaped",
			"SharedAccessSignature sr=sb%3a%2f%2fns.servicebus.windows.net%2fq&sig=" + sig + "&se=1800000000&skn=send",
			"SharedAccessSignature sr=sb%3a%2f%2fns.servicebus.windows.net%2fq&sig=[REDACTED:azure-sas-signature]&se=1800000000&skn=send"},
		{"not a signature", "compare sig=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH please", "compare sig=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH please"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact =\n %q\nwant\n %q", got, tt.want)
			}
		})
	}
}
