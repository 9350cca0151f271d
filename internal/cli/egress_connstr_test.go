package cli_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// connStrSeeds are the credentials issue 28 found unredacted, assembled at
// run time so that no scanner mistakes this file for a leak: an Azure
// storage account key, a Service Bus shared access key and a Docker
// registry's base64 user:password.
var connStrSeeds = map[string]string{
	"azure-account": "Eg8ressAzur3AccountK3yThatMustNotLeave" + "0123456789abcdefGHIJKL+/mnopQR==",
	"service-bus":   "Eg8ressServ1ceBusK3yNotToLeave" + "0123456789ab=",
	"docker":        base64.StdEncoding.EncodeToString([]byte("ana:" + "egress-docker-" + "pat-77f1")),
}

// TestConnectionStringSecretEgress plants the three in files the agent
// prints and the advisor reads itself (a connection string in a .env
// with a name no rule knows, a Docker config.json): no request to the
// advisor's model holds them, each is hidden under its shape's name,
// while the agent's own requests hold them all.
func TestConnectionStringSecretEgress(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "cat storage.env docker-config.json"}}]
      - text: "FINAL-connstr: both are configured."
  - name: advisor
    model: adv
    repeat: true
    steps:
      - tool_calls:
          - {name: read, arguments: {path: storage.env}}
          - {name: read, arguments: {path: docker-config.json}}
      - text: "Nothing to add."
`)
	addAdvisorModel(t, agentDir)
	files := map[string]string{
		"storage.env": "STORAGE=DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + connStrSeeds["azure-account"] + ";EndpointSuffix=core.windows.net\n" +
			"QUEUE=Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + connStrSeeds["service-bus"] + "\n",
		"docker-config.json": `{"auths":{"registry.example.com":{"auth":"` + connStrSeeds["docker"] + `"}}}` + "\n",
		".vigil/config.yml":  "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n",
	}
	for name, text := range files {
		p := filepath.Join(work, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "-p", "check the configuration", "--advisor-model", "fake/adv")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || !strings.Contains(string(out), "FINAL-connstr") {
		t.Fatalf("vigil: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var advisor []string
	primary := map[string]bool{}
	for _, r := range srv.Requests() {
		body := string(r.Body)
		for name, secret := range connStrSeeds {
			if !strings.Contains(body, secret) {
				continue
			}
			if r.Model == "adv" {
				t.Errorf("advisor request %d holds the %s secret", len(advisor)+1, name)
			} else {
				primary[name] = true
			}
		}
		if r.Model == "adv" {
			advisor = append(advisor, body)
		}
	}
	if len(advisor) < 2 {
		t.Fatalf("%d advisor requests, want the update and the results of its reads", len(advisor))
	}
	all := strings.Join(advisor, "\n")
	for _, want := range []string{
		"AccountKey=[REDACTED:azure-account-key];EndpointSuffix",
		"SharedAccessKey=[REDACTED:azure-shared-access-key]",
		`[REDACTED:docker-auth]`,
	} {
		if n := strings.Count(all, want); n < 2 {
			t.Errorf("%d advisor requests hold %q, want the update's and its own read's", n, want)
		}
	}
	if len(primary) != len(connStrSeeds) {
		t.Errorf("the agent's requests hold %v of the seeds, want all: were they planted?", primary)
	}
}
