// Package models resolves model references to concrete models: the built-in
// catalog of Anthropic and OpenAI models, the user's models.yml (the shape
// omp uses, so an omp user can point vigil at their existing file), API keys
// from the environment, and the adapters that talk to each provider.
//
// A [Registry] is built once from the catalog and an optional models.yml;
// [Registry.Resolve] turns "provider/model[:thinking]" or a bare model id into
// a [Resolved] model, and [Resolved.Open] builds the [llm.Model] for it,
// wrapped in the retry policy. [Registry.Entries] lists every model with the
// reason it cannot be used, if any, for `vigil models`.
//
// A Registry holds no global state; everything it reads (files, the
// environment) is passed in, so tests and many sessions in one process stay
// independent.
package models
