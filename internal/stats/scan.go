package stats

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Options say which sessions a [Scan] reports and how it prices them.
type Options struct {
	// Price returns the price of a model, given as provider/model with no
	// thinking level, and false for a model it does not know. It is
	// called once per model. nil prices nothing: every turn is unpriced.
	Price func(llm.Ref) (llm.Price, bool)
	// Since, when set, counts only the entries appended at or after it;
	// a session with none, created before it, is left out.
	Since time.Time
	// Project, when set, keeps only the sessions whose working folder
	// contains it.
	Project string
	// Cwd, when set, keeps only the sessions of exactly this working
	// folder, and reads only its folder of the sessions root.
	Cwd string
}

// scanner is one Scan in progress.
type scanner struct {
	root   string
	opts   Options
	prices map[string]pricing
	// owned maps a top-level session file to the files it owns,
	// itself included.
	owned    map[string][]*file
	problems []Problem
}

type pricing struct {
	price llm.Price
	ok    bool
}

// Scan reads every session file under the sessions folder root and adds
// them up. A folder that does not exist holds no sessions. Damaged files
// are reported in [Report.Problems], never as an error: the error is only
// for a root that cannot be walked at all.
func Scan(root string, opts Options) (*Report, error) {
	s := &scanner{root: filepath.Clean(root), opts: opts, prices: make(map[string]pricing), owned: make(map[string][]*file)}
	if opts.Cwd != "" {
		s.opts.Cwd = filepath.Clean(opts.Cwd)
	}
	start := s.root
	if s.opts.Cwd != "" {
		start = filepath.Join(s.root, session.Slug(s.opts.Cwd))
	}
	err := filepath.WalkDir(start, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == start {
				if errors.Is(err, fs.ErrNotExist) {
					return fs.SkipAll
				}
				return err
			}
			s.problems = append(s.problems, Problem{File: path, Kind: ProblemUnreadable, Error: err.Error()})
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		owner, nested := s.ownerOf(path)
		f, prob := s.readFile(path, nested)
		if prob != nil {
			s.problems = append(s.problems, *prob)
		}
		if f != nil {
			s.owned[owner] = append(s.owned[owner], f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan sessions %s: %w", start, err)
	}
	return s.report(), nil
}

// ownerOf returns the top-level session file that owns path: path itself
// for a file of ROOT/<slug>/, and ROOT/<slug>/<name>.jsonl for anything in
// the artifacts folder ROOT/<slug>/<name>/, at any depth.
func (s *scanner) ownerOf(path string) (owner string, nested bool) {
	rel, err := filepath.Rel(s.root, path)
	if err != nil {
		return path, false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) <= 2 {
		return path, false
	}
	return filepath.Join(s.root, parts[0], parts[1]+".jsonl"), true
}

// price returns the price of ref, asking Options.Price once per model.
func (s *scanner) price(ref llm.Ref) (llm.Price, bool) {
	key := ref.String()
	if p, ok := s.prices[key]; ok {
		return p.price, p.ok
	}
	var p pricing
	if key != "" && s.opts.Price != nil {
		p.price, p.ok = s.opts.Price(ref)
	}
	s.prices[key] = p
	return p.price, p.ok
}
