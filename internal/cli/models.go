package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

type modelsCmd struct {
	File      string `help:"models.yml to read instead of the one in the agent folder." type:"path" placeholder:"PATH"`
	Available bool   `help:"List only the models that can be used now."`
	JSON      bool   `help:"Print JSON lines instead of a table."`
}

// registry loads the user's models.yml (file, or the agent folder's) and
// builds the registry over the built-in catalog.
func (e *env) registry(file string) (*models.Registry, error) {
	if file == "" {
		dir, err := e.agentDir()
		if err != nil {
			return nil, err
		}
		file = filepath.Join(dir, "models.yml")
	}
	user, err := models.LoadFile(file)
	if err != nil {
		return nil, err
	}
	return models.New(models.Options{User: user, UserPath: file, LookupEnv: e.lookupEnv}), nil
}

func (c *modelsCmd) Run(e *env) error {
	reg, err := e.registry(c.File)
	if err != nil {
		return err
	}
	entries := reg.Entries()
	if c.JSON {
		enc := json.NewEncoder(e.stdout)
		for _, en := range entries {
			if c.Available && en.Problem != "" {
				continue
			}
			if err := enc.Encode(modelJSON(en)); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tAPI\tCONTEXT\tOUTPUT\t$/M IN\t$/M OUT\tSTATUS")
	for _, en := range entries {
		if c.Available && en.Problem != "" {
			continue
		}
		status := "ready"
		if en.Problem != "" {
			status = en.Problem
		}
		i := en.Info
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i.Ref(), i.API, tokens(i.ContextWindow), tokens(i.MaxOutput),
			price(i.Price.Input), price(i.Price.Output), status)
	}
	return tw.Flush()
}

type modelEntryJSON struct {
	Ref           string    `json:"ref"`
	Name          string    `json:"name"`
	API           llm.API   `json:"api"`
	Reasoning     bool      `json:"reasoning"`
	ContextWindow int       `json:"contextWindow"`
	MaxTokens     int       `json:"maxTokens"`
	Cost          llm.Price `json:"cost"`
	Source        string    `json:"source"`
	Ready         bool      `json:"ready"`
	Problem       string    `json:"problem,omitempty"`
}

func modelJSON(en models.Entry) modelEntryJSON {
	return modelEntryJSON{
		Ref: en.Info.Ref().String(), Name: en.Info.Name, API: en.Info.API, Reasoning: en.Info.Reasoning,
		ContextWindow: en.Info.ContextWindow, MaxTokens: en.Info.MaxOutput, Cost: en.Info.Price,
		Source: en.Source, Ready: en.Problem == "", Problem: en.Problem,
	}
}

// tokens formats a token count as 200K or 1.05M.
func tokens(n int) string {
	switch {
	case n <= 0:
		return "-"
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	case n >= 1000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "K"
	}
	return strconv.Itoa(n)
}

func price(p float64) string {
	if p == 0 {
		return "-"
	}
	return strconv.FormatFloat(p, 'f', -1, 64)
}
