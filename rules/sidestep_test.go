package rules

import "testing"

func TestSidestep(t *testing.T) {
	missing := func(script string) st {
		return do(sh("python "+script, "Traceback (most recent call last):\n  File \"/testbed/"+script+"\", line 2, in <module>\n    import numpy as np\nModuleNotFoundError: No module named 'numpy'", true))
	}
	script := func(name, body string) st {
		return do(sh("cat > "+name+" << 'EOF'\n"+body+"\nEOF\npython "+name, "ok", false))
	}
	timeout := do(sh("pip install numpy", "ERROR: Read timed out.", true))
	runCases(t, "sidestep", []detectorCase{
		{"the blocker again, then code that avoids it", []st{
			missing("check.py"), timeout, missing("check2.py"),
			script("analyze.py", "print('the fix replaces = 1 with = right')"),
		}, []int{4}},
		{"inline code counts too", []st{
			missing("check.py"), timeout, missing("check.py"),
			do(sh("python -c \"print('logic looks right')\"", "logic looks right", false)),
		}, []int{4}},
		{"the first time is not yet a pattern", []st{missing("check.py"), script("analyze.py", "print('fine')")}, nil},
		{"installing is fixing", []st{missing("a.py"), missing("a.py"), do(sh("pip install numpy==1.26", "Successfully installed numpy", false))}, nil},
		{"code that still imports it is a retry", []st{missing("a.py"), missing("a.py"), script("b.py", "import numpy as np\nprint(np.zeros(2))")}, nil},
		{"reading first, then the sidestep", []st{
			missing("a.py"), missing("a.py"), do(sh("cat a.py", "import numpy", false)),
			script("mock_check.py", "class FakeArray: pass\nprint('ok')"),
		}, []int{4}},
		{"a missing test runner is not a blocker", []st{
			do(sh("python -m pytest", "/usr/bin/python: No module named pytest", true)),
			do(sh("python -m pytest", "/usr/bin/python: No module named pytest", true)),
			script("run_tests.py", "print('run by hand')"),
		}, nil},
		{"an unconfigured framework", []st{
			do(sh("python t1.py", "  File \"/testbed/t1.py\", line 3, in <module>\n    from django.contrib.auth.forms import Widget\ndjango.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but settings are not configured.", true)),
			script("t2.py", "import ast\nprint(ast.dump(ast.parse(open('forms.py').read())))"),
			do(sh("python t3.py", "  File \"/testbed/t3.py\", line 9, in <module>\n    from django.contrib.auth.forms import Widget\ndjango.core.exceptions.AppRegistryNotReady: Apps aren't loaded yet.", true)),
			script("t4.py", "import re\nprint(re.findall('def id_for_label', open('forms.py').read()))"),
		}, []int{4}},
	})
}
