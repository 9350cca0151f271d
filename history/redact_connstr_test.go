package history_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
)

// Issue 28: credentials inside a connection string or a registry's
// config are hidden whatever the file or variable holding them is
// called: the account key of an Azure storage connection string, the
// shared access key of a Service Bus (or Event Hubs) one, and the
// base64 user:password of a Docker config's "auth".
func TestRedactConnectionStringShapes(t *testing.T) {
	r := history.NewRedactor(nil, nil)
	accountKey := key("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu", "Fq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
	busKey := key("Gx8pQ2vR7sT1uW3yZ5aB9cD0eF4gH6iJ8kL", "2mN4oP6qR8s=")
	dockerAuth := base64.StdEncoding.EncodeToString([]byte("ana:" + key("dckr_pat_", "Zx81kQ2m")))
	tests := []struct{ name, in, want string }{
		{"azure storage",
			"DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + accountKey + ";EndpointSuffix=core.windows.net",
			"DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[REDACTED:azure-account-key];EndpointSuffix=core.windows.net"},
		{"azure storage, key last and quoted",
			`conn = "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=` + accountKey + `"`,
			`conn = "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=[REDACTED:azure-account-key]"`},
		{"azure storage, lower case",
			"defaultendpointsprotocol=https;accountname=x;accountkey=" + accountKey,
			"defaultendpointsprotocol=https;accountname=x;accountkey=[REDACTED:azure-account-key]"},
		{"service bus",
			"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + busKey + ";EntityPath=q",
			"Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=[REDACTED:azure-shared-access-key];EntityPath=q"},
		{"docker config",
			`{"auths":{"registry.example.com":{"auth":"` + dockerAuth + `"}}}`,
			`{"auths":{"registry.example.com":{"auth":"[REDACTED:docker-auth]"}}}`},
		{"docker config, indented",
			"{\n\t\"auths\": {\n\t\t\"https://index.docker.io/v1/\": {\n\t\t\t\"auth\": \"" + dockerAuth + "\"\n\t\t}\n\t}\n}",
			"{\n\t\"auths\": {\n\t\t\"https://index.docker.io/v1/\": {\n\t\t\t\"auth\": \"[REDACTED:docker-auth]\"\n\t\t}\n\t}\n}"},
		{"docker config inside a JSON string",
			`{"output":"{\"auths\":{\"r\":{\"auth\":\"` + dockerAuth + `\"}}}"}`,
			`{"output":"{\"auths\":{\"r\":{\"auth\":\"[REDACTED:docker-auth]\"}}}"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := r.Redact(tt.in); got != tt.want {
				t.Errorf("Redact(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if got := r.Redact(r.Redact(tt.in)); got != tt.want {
				t.Errorf("redacting twice gives %q", got)
			}
		})
	}
	// What only looks like them stays: a name with no key, an "auth"
	// that is no user:password, a key too short to be one.
	for _, s := range []string{
		"DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;EndpointSuffix=core.windows.net",
		`{"auth": "required", "authType": "oauth"}`,
		`"auth":"` + base64.StdEncoding.EncodeToString([]byte("no colon in here")) + `"`,
		"AccountKey=short;",
		"SharedAccessKeyName=RootManageSharedAccessKey;",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("Redact(%q) = %q, want it unchanged", s, got)
		}
	}
}

// The new shapes' hints, repeated without a value, cost linear time and
// leave the text whole, as the other shapes' do.
func TestRedactConnectionStringHintRuns(t *testing.T) {
	r := history.NewRedactor(nil, nil)
	for _, unit := range []string{"AccountKey=", "SharedAccessKey=;", `"auth":"`, `"auth": `} {
		s := strings.Repeat(unit, (64<<10)/len(unit))
		if got := r.Redact(s); got != s {
			t.Errorf("a run of %q changed", unit)
		}
	}
}
