package rules

import (
	"fmt"
	"testing"
)

func TestRevertCycle(t *testing.T) {
	sed := func(p string) st { return do(sh("sed -i 's/return None/raise KeyError/' "+p, "", false)) }
	fix := func(p, body string) st {
		// A script written and run in one command that rewrites p.
		return do(sh("cat > fix.py << 'EOF'\nsrc = open('"+p+"').read()\nopen('"+p+"', 'w').write(src.replace('a', '"+body+"'))\nEOF\npython fix.py", "done", false))
	}
	n := 0
	test := func() st {
		// Each run fails in a new way: a run that shows something new
		// keeps edit-thrash out of these cases.
		n++
		return do(sh("python -m pytest -q tests/test_m.py", fmt.Sprintf("FAILED test_%d", n), true))
	}
	runCases(t, "revert-cycle", []detectorCase{
		{"a revert with nothing new since the edit is a nit", []st{
			do(sh("cp lib/m.py lib/m.py.bak", "", false)), sed("lib/m.py"), do(sh("cat lib/m.py", "raise KeyError", false)), do(sh("cp lib/m.py.bak lib/m.py", "", false)),
		}, []int{4}},
		{"a revert after a run that showed something new is a nit too", []st{
			do(sh("cp lib/m.py lib/m.py.bak", "", false)), sed("lib/m.py"), test(), do(sh("cp lib/m.py.bak lib/m.py", "", false)),
		}, []int{4}},
		{"redoing the change just reverted is a concern", []st{
			sed("a.py"), test(), do(sh("git checkout -- a.py", "", false)), sed("a.py"),
		}, []int{3, 4}},
		{"a new approach after the revert is no cycle", []st{
			sed("a.py"), test(), do(sh("git checkout -- a.py", "", false)), do(sh("sed -i 's/return None/return {}/' a.py", "", false)), test(),
		}, []int{3}},
		{"a second revert after a new edit is a concern", []st{
			do(sh("cp lib/m.py lib/m.py.bak", "", false)),
			fix("lib/m.py", "b"), test(), do(sh("cp lib/m.py.bak lib/m.py", "", false)),
			fix("lib/m.py", "c"), test(), do(sh("cp lib/m.py.bak lib/m.py", "", false)),
		}, []int{4, 7}},
		{"git restore, then git stash of several edited files, one nit each", []st{
			sed("a.py"), do(sh("git restore a.py", "", false)),
			{notes: []string{"Try it on all three."}, calls: []call{sh("sed -i 's/x/y/' a.py", "", false)}},
			sed("b.py"), sed("c.py"), do(sh("git stash", "Saved working directory", false)),
		}, []int{2, 6}},
		{"an absolute path in the edit tool, a relative one in the shell", []st{
			do(tool("Edit", map[string]any{"file_path": "/home/u/proj/a.py", "old_string": "x", "new_string": "y"}, "The file /home/u/proj/a.py has been updated successfully.", false)),
			do(sh("git checkout -- a.py", "", false)),
		}, []int{2}},
		{"restoring a file the agent never edited is no revert", []st{
			do(sh("git checkout -- a.py", "", false)), do(sh("cp b.py.orig b.py", "", false)),
		}, nil},
		{"a scratch file the agent created is its own to reset", []st{
			do(sh("cat > repro.py << 'EOF'\nprint(1)\nEOF", "", false)), do(sh("cp repro.py repro.py.bak", "", false)),
			do(sh("cat > repro.py << 'EOF'\nprint(2)\nEOF", "", false)), do(sh("cp repro.py.bak repro.py", "", false)),
		}, nil},
		{"a user message in between starts over", []st{
			sed("a.py"), do(sh("git checkout -- a.py", "", false)),
			{notes: []string{"Try the other approach."}, calls: []call{sh("sed -i 's/x/y/' a.py", "", false)}},
			do(sh("git checkout -- a.py", "", false)),
		}, []int{2, 4}},
	})
	fs := only(review(Settings{}, sed("a.py"), do(sh("git checkout -- a.py", "", false)), do(sh("sed -i 's/return None/return 0/' a.py", "", false)), test(), do(sh("git checkout -- a.py", "", false))), "revert-cycle")
	if len(fs) != 2 || fs[0].Severity != Nit || fs[1].Severity != Concern || fs[1].StartStep != 2 || fs[1].EndStep != 5 {
		t.Errorf("got %v, want a nit at 2 and a concern from 2 to 5", fs)
	}
}

func TestSameResult(t *testing.T) {
	prompt := "? Would you like to use React Compiler? » No / Yes"
	create := func(feed string) st {
		return do(sh(feed+"npx create-next-app@latest web --ts 2>&1", "Need to install create-next-app\n"+prompt, false))
	}
	runCases(t, "same-result", []detectorCase{
		{"fed input three ways, stuck at the same prompt", []st{
			create(""), create("echo N | "), do(sh("printf 'N\\n' | npx create-next-app@latest web --ts --yes < /dev/null", prompt, false)),
		}, []int{3}},
		{"the same build passing three times with nothing changed", []st{
			do(sh("npm run build", "built in 2.1s", false)), do(sh("npm run build", "built in 1.9s", false)), do(sh("npm run build", "built in 2.0s", false)),
		}, []int{3}},
		{"an edit in between may change the result", []st{
			do(sh("npm run build", "error TS2322", true)),
			do(tool("edit", map[string]any{"path": "src/a.ts", "old_text": "x", "new_text": "y"}, "ok", false)),
			do(sh("npm run build", "error TS2322", true)),
			do(tool("edit", map[string]any{"path": "src/a.ts", "old_text": "y", "new_text": "z"}, "ok", false)),
			do(sh("npm run build", "error TS2322", true)),
		}, nil},
		{"the same command failing the same way is repeated-failure's", []st{
			do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)),
		}, nil},
		{"another program in between starts over", []st{
			create(""), do(sh("node --version", "v22", false)), create("echo N | "), do(sh("node --version", "v22", false)), create(""),
		}, nil},
		{"a different ending is news", []st{
			do(sh("./serve.sh", "port 3000 in use", true)), do(sh("PORT=3001 ./serve.sh", "listening on 3001", false)), do(sh("./serve.sh --port 3002", "listening on 3002", false)),
		}, nil},
	})
}

func TestCoreKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"echo N | npx create-next-app@latest web --ts", "create-next-app@latest web"},
		{"timeout 60 npx --yes create-next-app@latest web", "create-next-app@latest web"},
		{"sudo -u app python manage.py migrate", "python manage.py"},
		{"yes | apt-get install -y x", "apt-get install"},
		{"grep x a | wc -l", "grep x a | wc -l"},
		{"npm run build", "npm run"},
		{"timeout 5", ""},
		// Every wrapper simpleCmd.program knows, with its options and
		// operands.
		{"setsid nohup python server.py > server.log", "python server.py"},
		{"env A=1 python x.py", "python x.py"},
		{"timeout -s KILL 60 make build", "make build"},
		{"uv run pytest tests", "pytest tests"},
		{"xargs -n 1 rm", "rm"},
		{"command -v foo", "command foo"},
		{"env", ""},
		{"sudo -u app", ""},
	} {
		if got := coreKey(c.in); got != c.want {
			t.Errorf("coreKey(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
