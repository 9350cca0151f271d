package cli

import (
	"fmt"
	"os"

	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fleet"
)

// trustCmd is `vigil trust`: let a folder's settings file choose models,
// turn the advisor on and let tools leave the project (docs/config.md).
type trustCmd struct {
	Dir    string `arg:"" optional:"" help:"The folder to trust; default: this folder's project (the folder with .git or .vigil)." type:"path"`
	Revoke bool   `help:"Stop trusting the folder."`
	List   bool   `help:"List the trusted folders."`
}

func (c *trustCmd) Run(e *env) error {
	agentDir, err := e.agentDir()
	if err != nil {
		return err
	}
	if c.List {
		folders, err := config.TrustedFolders(agentDir)
		if err != nil {
			return err
		}
		if len(folders) == 0 {
			fmt.Fprintln(e.stdout, "No folder is trusted: project settings that choose models or turn the advisor on are held back everywhere.")
		}
		for _, f := range folders {
			fmt.Fprintln(e.stdout, f)
		}
		return nil
	}
	dir := c.Dir
	if dir == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the working folder: %w", err)
		}
		dir = contextfiles.ProjectRoot(cwd)
	}
	if !c.Revoke {
		// A trusted folder trusts every folder under it: not the home
		// folder, nor the root of the file system.
		home, _ := e.lookupEnv("HOME")
		if err := config.CheckTrustable(dir, home); err != nil {
			return err
		}
	}
	d, err := config.Trust(agentDir, dir, c.Revoke)
	if err != nil {
		return err
	}
	if c.Revoke {
		through, err := config.TrustedThrough(agentDir, d)
		if err != nil {
			return err
		}
		if through != "" {
			fmt.Fprintf(e.stdout, "Removed %s from the trusted folders, but it stays trusted through %s (a trusted folder trusts every folder under it). To stop trusting it, run: vigil trust --revoke %s\n", d, through, through)
			return nil
		}
		fmt.Fprintf(e.stdout, "No longer trusted: %s. Its settings that choose models, turn the advisor on or let tools leave the project are held back again.\n", d)
		return nil
	}
	// Say what trusting it changes now.
	_, p, err := config.LoadProject(config.Options{AgentDir: agentDir, ProjectDir: d})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Trusted: %s (listed in %s).\n", d, config.TrustFile(agentDir))
	if n := fleet.HideCredentials(p.Notice()); n != "" {
		fmt.Fprintln(e.stdout, n)
	}
	return nil
}
