package attach

import (
	"context"
	"fmt"
	"path/filepath"
)

// attachExtension is `vigil attach pi|omp`: vigil's extension written
// into File, running the hook binary when no sidecar answers
// (docs/attach.md). Attaching for every project moves out the extension
// an older vigil wrote into the working folder's project (OldFile).
func (r *Request) attachExtension(ctx context.Context) error {
	plan, err := PlanExtension(r.File, r.Agent, r.Binary)
	if err != nil {
		return err
	}
	// Both would load where the agent loads the project's (omp, pi before
	// 0.79, a project pi trusts); from 0.79 on, pi skips the project's
	// silently in a project it does not trust.
	var moved *Plan
	if r.Scope == User {
		moved = r.oldExtension()
	}
	flag := ""
	if r.Scope == "" {
		flag = fmt.Sprintf("Load it with: %s -e %s\n", r.Agent, ShellQuote(r.File))
	}
	if !plan.Changed() && moved == nil {
		fmt.Fprintf(r.Out, "vigil is already attached to %s in %s: nothing to change.\n%s", r.Agent, r.File, flag)
		r.extensionNotes(ctx)
		return nil
	}
	if r.DryRun {
		fmt.Fprint(r.Out, plan.Diff())
		if moved != nil {
			fmt.Fprint(r.Out, moved.Diff())
		}
		fmt.Fprintf(r.Out, "dry run: %s not written.\n", r.File)
		return nil
	}
	if err := plan.WriteExtension(); err != nil {
		return err
	}
	fmt.Fprintf(r.Out, "vigil attached to %s in %s:\n", r.Agent, r.File)
	if r.Scope == Project {
		// A project's extension names the user's vigil-hook.
		if err := r.exclude(r.File); err != nil {
			return err
		}
	}
	if plan.Changed() {
		fmt.Fprintf(r.Out, "  %-8s vigil's extension (%s)\n", plan.Changes[0].Action+":", ShellQuote(filepath.Base(r.File)))
		fmt.Fprintf(r.Out, "  command: %s (when no sidecar answers)\n", plan.Changes[0].Now)
	}
	if moved != nil {
		if err := moved.WriteExtension(); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "  moved:   from %s (%s)\n", moved.File, movedWhy(r.Agent))
		if err := r.unexclude(moved.File); err != nil {
			return err
		}
	}
	if r.Scope == User {
		fmt.Fprintf(r.Out, "It serves every project you run %s in.\n", r.Agent)
	}
	fmt.Fprintf(r.Out, "%s reads its extensions when a session starts: sessions already running go on without it.\n%s", r.Agent, flag)
	if r.Agent == Omp {
		fmt.Fprintln(r.Out, "omp's own advisor (--advisor) reviews too: with both on, each note may come twice (docs/attach.md).")
	}
	r.extensionNotes(ctx)
	return nil
}

// movedWhy says why attach moves a project's extension to the user's
// folder.
func movedWhy(a Agent) string {
	if a == Pi {
		return "pi 0.79 and later load a project's extensions only in a project you trust; the user's serve every project"
	}
	return "the user's serves every project"
}

// oldExtension plans removing vigil's extension from OldFile, where an
// older vigil's attach wrote it by default: nil when there is none (or
// the file there is not vigil's: not ours to move).
func (r *Request) oldExtension() *Plan {
	if r.OldFile == "" {
		return nil
	}
	p, err := PlanExtensionDetach(r.OldFile)
	if err != nil || !p.Changed() {
		return nil
	}
	return p
}

// extensionNotes warns about what keeps the agent from loading the
// extension: its version on PATH, and for pi, a project it does not
// trust; and reminds that pi loads a project's extensions only in the
// folder it runs in.
func (r *Request) extensionNotes(ctx context.Context) {
	in := FindAgent(ctx, r.Agent, r.Path)
	if r.Scope == Project && r.Agent == Pi {
		dir := filepath.Dir(filepath.Dir(filepath.Dir(r.File)))
		fmt.Fprintf(r.Out, "pi loads a project's extensions when it runs in %s itself, not in a folder below it; and from 0.79 on, only in a project you trust (docs/attach.md).\n", dir)
	}
	if r.Scope == Project && r.UserFile != "" {
		if p, err := PlanExtensionDetach(r.UserFile); err == nil && p.Changed() {
			fmt.Fprintf(r.Out, "vigil is attached to %s for every project too (%s): where both load, one of them forwards the session's events.\n", r.Agent, r.UserFile)
		}
	}
	r.warn(LoadProblems(r.Agent, r.Scope, r.File, in, r.PiAgentDir))
}

// detachExtension is `vigil detach pi|omp`: the extension removed, with
// the folders attach created for it that this leaves empty; and, when
// OldFile is set, the one an older vigil wrote into this project.
func (r *Request) detachExtension() error {
	plan, err := PlanExtensionDetach(r.File)
	if err != nil {
		return err
	}
	plans := []*Plan{plan}
	if old := r.oldExtension(); old != nil {
		plans = append(plans, old)
	}
	if !plan.Changed() && len(plans) == 1 {
		fmt.Fprintf(r.Out, "vigil is not attached to %s in %s: nothing to change.\n", r.Agent, r.File)
		return nil
	}
	if r.DryRun {
		for _, p := range plans {
			fmt.Fprint(r.Out, p.Diff())
			fmt.Fprintf(r.Out, "dry run: %s not removed.\n", p.File)
		}
		return nil
	}
	for i, p := range plans {
		if !p.Changed() {
			continue
		}
		if err := p.WriteExtension(); err != nil {
			return err
		}
		fmt.Fprintf(r.Out, "vigil detached from %s in %s:\n  removed: vigil's extension\n", r.Agent, p.File)
		if i > 0 || r.Scope == Project {
			if err := r.unexclude(p.File); err != nil {
				return err
			}
		}
	}
	return nil
}
