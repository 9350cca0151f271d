package stats

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
)

// report applies the filters and adds the files up.
func (s *scanner) report() *Report {
	r := &Report{Version: Version, Root: s.root, Project: s.opts.Project, Cwd: s.opts.Cwd, Problems: s.problems}
	if !s.opts.Since.IsZero() {
		since := s.opts.Since
		r.Since = &since
	}
	projects := make(map[string]*Project)
	models := make(map[string]*Model)
	roles := make(map[Role]*RoleUsage)
	for owner, files := range s.owned {
		sess, ok := s.session(owner, files)
		if !ok {
			continue
		}
		for _, f := range files {
			if f.problem != nil {
				r.Problems = append(r.Problems, *f.problem)
			}
			ru := roles[f.role]
			if ru == nil {
				ru = &RoleUsage{Role: f.role}
				roles[f.role] = ru
			}
			ru.Files++
			ru.add(f.usage)
			for key, fm := range f.models {
				m := models[key]
				if m == nil {
					m = &Model{Model: key, Priced: true}
					models[key] = m
				}
				m.Priced = m.Priced && fm.Priced
				m.add(fm.Usage)
			}
		}
		p := projects[sess.Cwd]
		if p == nil {
			p = &Project{Cwd: sess.Cwd}
			projects[sess.Cwd] = p
		}
		p.Sessions++
		p.Prompts += sess.Prompts
		p.add(sess.Usage)
		r.Totals.Sessions++
		r.Totals.Files += len(files)
		r.Totals.Prompts += sess.Prompts
		r.Totals.add(sess.Usage)
		r.Sessions = append(r.Sessions, sess)
	}
	for _, p := range projects {
		r.Projects = append(r.Projects, *p)
	}
	for _, m := range models {
		r.Models = append(r.Models, *m)
	}
	for _, role := range Roles() {
		if ru := roles[role]; ru != nil {
			r.Roles = append(r.Roles, *ru)
		}
	}
	sortReport(r)
	return r
}

// session builds the session owner from the files it owns, and reports
// whether the filters keep it.
func (s *scanner) session(owner string, files []*file) (Session, bool) {
	slices.SortFunc(files, func(a, b *file) int { return cmp.Compare(a.path, b.path) })
	sess := Session{File: owner, Subagents: []Transcript{}, Advisors: []Transcript{}}
	var main *file
	if i := slices.IndexFunc(files, func(f *file) bool { return f.path == owner && f.role == RolePrimary }); i >= 0 {
		main = files[i]
		sess.ID, sess.Cwd, sess.Started, sess.Prompts = main.header.ID, main.header.Cwd, main.header.Created, main.prompts
		sess.Title, sess.Updated = main.title, main.updated
		sess.Primary = main.usage
	} else {
		sess.Missing = true
		sess.ID = idFromName(owner)
		sess.Cwd = files[0].header.Cwd
	}
	switch {
	case s.opts.Cwd != "" && sess.Cwd != s.opts.Cwd,
		s.opts.Project != "" && !strings.Contains(sess.Cwd, s.opts.Project),
		!slices.ContainsFunc(files, func(f *file) bool { return f.active }):
		return Session{}, false
	}
	for _, f := range files {
		sess.add(f.usage)
		if f == main {
			continue
		}
		t := Transcript{ID: f.header.ID, File: f.path, Role: f.role, ReadOnly: f.role == RoleAdvisor, Reviews: f.reviews, Consults: f.consults, Usage: f.usage}
		if f.header.Parent != nil {
			t.Parent = f.header.Parent.ID
		}
		if f.role == RoleAdvisor {
			sess.Advisors = append(sess.Advisors, t)
		} else {
			sess.Subagents = append(sess.Subagents, t)
		}
	}
	return sess, true
}

// idFromName returns the session id in a file name <time>_<id>.jsonl, or
// the name without .jsonl when it has no time.
func idFromName(path string) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if _, id, ok := strings.Cut(stem, "_"); ok && id != "" {
		return id
	}
	return stem
}

func sortReport(r *Report) {
	slices.SortFunc(r.Sessions, func(a, b Session) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), b.Started.Compare(a.Started), cmp.Compare(a.File, b.File))
	})
	slices.SortFunc(r.Projects, func(a, b Project) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(a.Cwd, b.Cwd))
	})
	slices.SortFunc(r.Models, func(a, b Model) int {
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(b.Turns, a.Turns), cmp.Compare(a.Model, b.Model))
	})
	slices.SortFunc(r.Problems, func(a, b Problem) int { return cmp.Compare(a.File, b.File) })
	if r.Projects == nil {
		r.Projects = []Project{}
	}
	if r.Models == nil {
		r.Models = []Model{}
	}
	if r.Roles == nil {
		r.Roles = []RoleUsage{}
	}
	if r.Sessions == nil {
		r.Sessions = []Session{}
	}
	if r.Problems == nil {
		r.Problems = []Problem{}
	}
}
