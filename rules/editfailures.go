package rules

import "fmt"

var editFailuresInfo = Info{
	Name:     "edit-failures",
	Severity: Concern,
	Doc: "Edit calls that keep failing on the same file: the text to replace not found or not " +
		"unique, a patch that does not apply, an edit rejected by the editor's linter or syntax " +
		"check, in each harness's words (Claude Code's Edit and MultiEdit, Codex's apply_patch, " +
		"OpenHands' and SWE-agent's str_replace_editor and edit, pi's and vigil's edit). Reads and " +
		"searches in between do not end the streak; an edit of the file that works does. Reported " +
		"at the EditFailures-th failed edit in a row (default 3): the agent's picture of the file " +
		"is wrong, and reading it again is cheaper than another guess.",
}

// editFailures counts failed edits in a row per file.
type editFailures struct {
	min     int
	streaks map[string]editStreak
}

type editStreak struct {
	count, first, last int
	reported           bool
}

func (d *editFailures) reset() { d.streaks = nil }

func (d *editFailures) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		if a.Kind != KindEdit || !a.Answered {
			continue
		}
		key := fileKey(a.Path)
		if !a.Failed {
			for _, ef := range a.effects {
				delete(d.streaks, ef.file.key)
			}
			delete(d.streaks, key)
			continue
		}
		if key == "" {
			continue
		}
		if d.streaks == nil {
			d.streaks = map[string]editStreak{}
		}
		s, ok := d.streaks[key]
		if !ok || s.last < v.oldest() {
			if len(d.streaks) >= 64 {
				clear(d.streaks)
			}
			s = editStreak{first: v.n}
		}
		s.count++
		s.last = v.n
		if s.count >= d.min && !s.reported {
			s.reported = true
			emit(candidate{subject: textSig(key), Finding: Finding{
				Detector:  editFailuresInfo.Name,
				Severity:  editFailuresInfo.Severity,
				StartStep: s.first,
				EndStep:   v.n,
				Message: fmt.Sprintf("%d edits of %s in a row have failed; the file is not what you think it is. Read the part you want to change, exactly as it is now, before the next edit.",
					s.count, key),
				Evidence: clip(lastLine(a.Output), 160),
			}})
		}
		d.streaks[key] = s
	}
}
