package models_test

import (
	"testing"

	"github.com/vigil-dev/vigil/internal/models"
)

func TestSecrets(t *testing.T) {
	data := "providers:\n  lit:\n    baseUrl: http://127.0.0.1:1\n    api: anthropic-messages\n    apiKey: sk-literal-key-0123456789abcdef\n    models: [{id: a}]\n  env:\n    baseUrl: http://127.0.0.1:1\n    api: anthropic-messages\n    apiKey: MY_PROVIDER_KEY\n    models: [{id: b}]\n  open:\n    baseUrl: http://127.0.0.1:1\n    api: anthropic-messages\n    auth: none\n    models: [{id: c}]\n"
	f, err := models.ParseFile("models.yml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"MY_PROVIDER_KEY": "from-the-environment-0123456789"}
	r := models.New(models.Options{User: f, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	got := r.Secrets()
	if got["lit apiKey"] != "sk-literal-key-0123456789abcdef" || got["env apiKey"] != "from-the-environment-0123456789" {
		t.Errorf("Secrets() = %v", got)
	}
	if _, ok := got["open apiKey"]; ok {
		t.Errorf("a provider without auth has a secret: %v", got)
	}
}
