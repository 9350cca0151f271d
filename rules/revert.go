package rules

import "fmt"

var revertInfo = Info{
	Name:     "revert-cycle",
	Severity: Concern,
	Doc: "The agent throwing away its own edits to a file to start again: a restore (git checkout " +
		"or restore, git stash, reset --hard, a copy back from a .bak/.orig/.backup file, an editor " +
		"undo) that takes back changes the run made to a file it did not create. The first revert " +
		"is a nit (say what the failed attempt taught before redoing it); a second revert of the same " +
		"file within the window, with the file edited again in between, is a concern: edit, revert, " +
		"re-edit, revert is a cycle that brings no new information. A user message in between starts " +
		"the count again (reverts the user asks for are not the agent's circles).",
}

// revertCycle counts the reverts of each file the run edits.
type revertCycle struct {
	// reverts are the steps of each file's reverts in the window, and
	// reported the files whose cycle was reported as a concern.
	reverts  map[*fileState][]int
	reported map[*fileState]bool
	// nitStep is the step of the last nit: a restore of the whole tree
	// (git stash, reset --hard) is one nit, not one per file.
	nitStep int
}

func (d *revertCycle) reset() { d.reverts, d.reported, d.nitStep = nil, nil, 0 }

func (d *revertCycle) observe(v *view, emit func(candidate)) {
	if v.userSpoke && d.reverts != nil {
		// The user spoke: what follows may be what they asked for.
		d.reset()
	}
	for i := range v.acts {
		a := &v.acts[i]
		for _, ef := range a.effects {
			if ef.redo && !d.reported[ef.file] {
				if d.reported == nil {
					d.reverts, d.reported = map[*fileState][]int{}, map[*fileState]bool{}
				}
				d.reported[ef.file] = true
				emit(candidate{subject: textSig(ef.file.key), Finding: Finding{
					Detector:  revertInfo.Name,
					Severity:  revertInfo.Severity,
					StartStep: lastEditBefore(ef.file, v.n),
					EndStep:   v.n,
					Message: fmt.Sprintf("This makes again the change to %s that was just reverted; it will fail the same way. Work out why it failed before trying it again.",
						ef.file.key),
					Evidence: clip(a.Command, 120),
				}})
				continue
			}
			if !ef.revert {
				continue
			}
			if d.reverts == nil {
				d.reverts, d.reported = map[*fileState][]int{}, map[*fileState]bool{}
			}
			fs := ef.file
			steps := d.reverts[fs]
			for len(steps) > 0 && steps[0] < v.oldest() {
				steps = steps[1:]
			}
			if len(steps) > 0 && steps[len(steps)-1] == v.n {
				continue // one revert per file and step (git stash and a checkout)
			}
			steps = append(steps, v.n)
			d.reverts[fs] = steps
			if len(d.reverts) > 64 {
				d.reset()
				return
			}
			switch {
			case len(steps) == 1 && d.nitStep != v.n:
				// A nit even after a run that showed something new: taking
				// the edit back may be the lesson learnt (then a different
				// edit follows), or the start of a cycle (the same one
				// follows, a concern below); which, only the next edit
				// tells, and the start is where the episode is labelled.
				d.nitStep = v.n
				emit(candidate{subject: textSig(fs.key), Finding: Finding{
					Detector:  revertInfo.Name,
					Severity:  Nit,
					StartStep: lastEditBefore(fs, v.n),
					EndStep:   v.n,
					Message: fmt.Sprintf("This throws away your own changes to %s. Before editing it again, say what the attempt showed and what the next one does differently.",
						fs.key),
					Evidence: clip(a.Command, 120),
				}})
			case len(steps) >= 2 && !d.reported[fs] && editedBetween(fs, steps[len(steps)-2], v.n):
				d.reported[fs] = true
				emit(candidate{subject: textSig(fs.key), Finding: Finding{
					Detector:  revertInfo.Name,
					Severity:  revertInfo.Severity,
					StartStep: steps[0],
					EndStep:   v.n,
					Message: fmt.Sprintf("%s has been reverted %d times (steps %s), each time after a new edit: the edits go in circles. Stop and work out why the approach fails before editing it again.",
						fs.key, len(steps), stepList(steps)),
					Evidence: clip(a.Command, 120),
				}})
			}
		}
	}
}

// lastEditBefore returns the step of the last change to fs before step n
// (the edit a revert at n throws away), or n.
func lastEditBefore(fs *fileState, n int) int {
	last := n
	for _, s := range fs.edits {
		if s < n {
			last = s
		}
	}
	return last
}

// editedBetween reports whether fs changed after step from and before step to.
func editedBetween(fs *fileState, from, to int) bool {
	for _, s := range fs.edits {
		if s > from && s < to {
			return true
		}
	}
	return false
}

// stepList writes steps as "3, 7 and 9".
func stepList(steps []int) string {
	s := ""
	for i, n := range steps {
		switch {
		case i == 0:
		case i == len(steps)-1:
			s += " and "
		default:
			s += ", "
		}
		s += fmt.Sprint(n)
	}
	return s
}
