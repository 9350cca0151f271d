package rules

import "strings"

// readOnlyPrograms only look at things.
var readOnlyPrograms = set(
	"cat", "head", "tail", "less", "more", "nl", "wc", "ls", "ll", "tree", "pwd", "echo", "printf",
	"file", "stat", "diff", "cmp", "which", "type", "whereis", "env", "printenv", "du", "df",
	"date", "whoami", "id", "uname", "hostname", "ps", "pgrep", "jq", "yq", "xxd", "od", "hexdump",
	"strings", "readlink", "realpath", "basename", "dirname", "true", "false", "sleep", "test", "[", "[[", "command",
	"sort", "uniq", "cut", "tr", "column", "awk", "gawk", "sed", "view", "bat", "md5sum", "sha256sum",
	"sha1sum", "cksum", "lsof", "netstat", "ss", "free", "uptime", "top", "history", "tput", "clear",
	"open", "goto", "scroll_up", "scroll_down", "colordiff", "delta", "man", "help", "info", "locale",
)

// searchPrograms look for things.
var searchPrograms = set(
	"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind", "locate", "git-grep",
	"search_dir", "search_file", "find_file", "glob",
)

// psReads and psSearches are PowerShell's cmdlets (and their aliases) that
// only look at things or look for them, lower-cased: PowerShell reads
// names in any case.
var (
	psReads = set(
		"get-content", "gc", "get-childitem", "gci", "dir", "get-item", "gi", "get-itemproperty",
		"test-path", "get-location", "gl", "resolve-path", "get-process", "gps", "get-service",
		"get-command", "gcm", "get-help", "get-date", "get-filehash", "measure-object", "select-object",
		"format-table", "format-list", "out-string", "write-output", "write-host", "get-variable",
		"get-acl", "get-psdrive",
	)
	psSearches = set("select-string", "sls", "findstr", "where-object")
)

// interpreters run a script or inline code.
var interpreters = set(
	"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "ruby", "perl",
	"php", "bash", "sh", "zsh", "dash", "Rscript", "julia", "lua", "ts-node", "tsx",
)

// testRunners are programs that run tests whatever their arguments.
var testRunners = set(
	"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "rspec", "phpunit", "ctest",
	"nosetests", "trial", "karma", "cypress", "playwright", "busted", "prove", "bats",
)

// testPackages are Python modules that run tests (python -m pytest).
var testPackages = set("pytest", "unittest", "nose", "nose2", "tox", "nox", "doctest", "trial")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// isStatusQuery reports whether a program with its arguments only asks
// for the state of something: CI runs, pull requests, containers,
// services, an HTTP endpoint read with curl.
func isStatusQuery(prog string, args []string) bool {
	first, second := "", ""
	if len(args) > 0 {
		first = args[0]
	}
	if len(args) > 1 {
		second = args[1]
	}
	switch prog {
	case "gh":
		switch first + " " + second {
		case "run view", "run list", "run watch", "pr view", "pr checks", "pr status", "pr list", "issue view", "issue list", "workflow view":
			return true
		}
	case "kubectl":
		switch first {
		case "get", "describe", "logs", "top":
			return true
		}
		return first == "rollout" && second == "status"
	case "docker", "podman":
		switch first {
		case "ps", "logs", "inspect", "images", "stats":
			return true
		}
	case "systemctl":
		return first == "status" || first == "is-active"
	case "journalctl", "uptime", "nvidia-smi":
		return true
	case "curl", "wget":
		for _, a := range args {
			switch {
			case a == "-d" || strings.HasPrefix(a, "--data") || a == "-X" || strings.HasPrefix(a, "-X") && len(a) > 2 ||
				a == "-T" || a == "--upload-file" || a == "-F" || a == "--form" || a == "--request" || a == "-o" || a == "-O" || a == "--post-data":
				return false
			}
		}
		return true
	}
	return false
}

// isTestCommand reports whether a program with its arguments runs tests.
func isTestCommand(prog string, args []string) bool {
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	switch {
	case testRunners[prog]:
		return true
	case strings.HasPrefix(prog, "python") || prog == "pypy3" || prog == "coverage":
		for i, a := range args {
			if a == "-m" && i+1 < len(args) {
				m := args[i+1]
				return testPackages[m] || m == "django" && i+2 < len(args) && args[i+2] == "test"
			}
			if !strings.HasPrefix(a, "-") {
				b := baseName(a)
				return b == "runtests.py" || b == "manage.py" && i+1 < len(args) && args[i+1] == "test" ||
					b == "setup.py" && i+1 < len(args) && args[i+1] == "test"
			}
		}
	case prog == "runtests.py" || prog == "django-admin" && first == "test" || prog == "manage.py" && first == "test":
		return true
	case prog == "go" || prog == "cargo" || prog == "dotnet" || prog == "bazel" || prog == "bazelisk" || prog == "swift" || prog == "mix" || prog == "zig" || prog == "deno" || prog == "bun":
		return first == "test" || first == "nextest" || prog == "go" && first == "vet"
	case prog == "npm" || prog == "yarn" || prog == "pnpm":
		return first == "test" || first == "t" || first == "run" && len(args) > 1 && strings.HasPrefix(args[1], "test")
	case prog == "make" || prog == "just" || prog == "task":
		return first == "test" || first == "tests" || first == "check" || first == "ci"
	case prog == "mvn" || prog == "gradle" || prog == "gradlew":
		return first == "test" || first == "verify" || first == "check"
	case prog == "bundle":
		return first == "exec" && len(args) > 1 && (args[1] == "rspec" || args[1] == "rake")
	case prog == "rake":
		return first == "test" || first == "spec"
	}
	return false
}

// isInstall reports whether a program with its arguments installs
// packages or otherwise sets up the environment.
func isInstall(prog string, args []string) bool {
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	switch prog {
	case "pip", "pip3", "pipx", "uv", "poetry", "conda", "mamba", "micromamba", "npm", "yarn", "pnpm", "gem", "cargo", "go", "apt", "apt-get", "yum", "dnf", "apk", "brew", "composer", "bundle":
		switch first {
		case "install", "add", "i", "sync", "get", "update", "upgrade", "ci", "mod", "develop":
			return true
		case "pip":
			return len(args) > 1 && args[1] == "install"
		}
	case "easy_install", "pip-sync":
		return true
	}
	if strings.HasPrefix(prog, "python") {
		for i, a := range args {
			if a == "-m" && i+2 < len(args) && (args[i+1] == "pip" || args[i+1] == "ensurepip") {
				return args[i+2] == "install" || args[i+1] == "ensurepip"
			}
			if baseName(a) == "setup.py" && i+1 < len(args) && (args[i+1] == "develop" || args[i+1] == "install" || args[i+1] == "build_ext") {
				return true
			}
		}
	}
	return false
}

// displayFilters only trim or page what the command before them printed.
var displayFilters = set("head", "tail", "less", "more", "cat", "nl")
