#!/bin/bash
# record.sh [claude-code] [codex]: records the sessions of this folder, Claude Code
# and Codex with hooks that inject advice (hook.sh), offline against fakellm, and
# writes claude-code.jsonl.gz and codex.jsonl.gz here (scrubbed with
# transcript/testdata/scrub, checked to review as the originals, then gzip -9 -n).
# See README.md in this folder.
#
# Run from the repository root, with the agents installed under AGENTS:
#   npm install --prefix /tmp/agents @anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0
#   bash transcript/testdata/follow/record.sh
# AGENTS (default /tmp/agents) is the npm prefix; CLAUDE and CODEX name other
# binaries. It builds ./cmd/fakellm, ./cmd/vigil and the scrubber from the checkout
# into $WORKROOT/bin. WORKROOT (default /tmp/vigil-follow) holds the throwaway folders,
# $WORKROOT/AGENT/{work,home,state}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WORKROOT=${WORKROOT:-/tmp/vigil-follow}
AGENTS=${AGENTS:-/tmp/agents}
CLAUDE=${CLAUDE:-$AGENTS/node_modules/.bin/claude}
CODEX=${CODEX:-$AGENTS/node_modules/.bin/codex}
mkdir -p "$WORKROOT/bin"
go build -o "$WORKROOT/bin/fakellm" ./cmd/fakellm
go build -o "$WORKROOT/bin/vigil" ./cmd/vigil
go build -o "$WORKROOT/bin/scrub" ./transcript/testdata/scrub
PATHS=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# start_fakellm SCRIPT: starts fakellm on a free port, sets fpid and url.
start_fakellm() {
	setsid "$WORKROOT/bin/fakellm" --script "$1" --addr 127.0.0.1:0 --log "$root/fakellm.log" >"$root/fakellm.out" 2>&1 &
	fpid=$!
	url=
	for _ in $(seq 1 600); do
		url=$(sed -n 's/^fakellm listening on //p' "$root/fakellm.out" 2>/dev/null | head -1)
		[ -n "$url" ] && return 0
		sleep 0.1
	done
	echo "fakellm did not start:" >&2
	cat "$root/fakellm.out" >&2
	kill -- -"$fpid" 2>/dev/null || true
	exit 1
}

stop_fakellm() {
	kill -- -"$fpid" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	if grep -q '"rule":"anything else"' "$root/fakellm.log"; then
		echo "warning: the agent sent requests the script does not cover (see $root/fakellm.log)" >&2
	fi
}

# interrupt_on PATTERN DIR: once a file under DIR holds PATTERN, waits a second
# (the tool starts, the request is in flight) and interrupts the agent with
# SIGINT, as Ctrl-C would; $root/agent.pid holds the pid of timeout, whose child
# is the agent.
interrupt_on() {
	for _ in $(seq 1 600); do
		grep -rqF -- "$1" "$2" 2>/dev/null && break
		sleep 0.1
	done
	sleep 1
	kill -INT "$(pgrep -P "$(cat "$root/agent.pid")")"
}

# need BINARY PACKAGE: stops unless the agent is installed.
need() {
	if [ ! -x "$1" ]; then
		echo "no agent at $1: npm install --prefix $AGENTS $2" >&2
		exit 1
	fi
}

# keep ORIGINAL SCRUBBED NAME: checks that the scrubbed copy reviews as the file the
# agent wrote (same steps, same findings; the run's description may differ, since
# it is read from the head of the file, which scrubbing shortens) and gzips it into
# this folder as NAME.
keep() {
	local a b
	a=$("$WORKROOT/bin/vigil" review --json "$1" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
	b=$("$WORKROOT/bin/vigil" review --json "$2" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
	if [ "$a" != "$b" ]; then
		echo "$3: the scrubbed copy reviews differently from the original" >&2
		exit 1
	fi
	gzip -9 -n -c "$2" >"$here/$3"
	echo "$3: $(wc -l <"$2") lines, $(wc -c <"$here/$3") bytes"
}

# hooks_json EVENT...: the hooks configuration both agents read, each EVENT
# answered by hook.sh.
hooks_json() {
	local cmd="sh $root/hook.sh" ev sep=
	printf '{"hooks": {'
	for ev in "$@"; do
		printf '%s"%s": [{"hooks": [{"type": "command", "command": "%s"}]}]' "$sep" "$ev" "$cmd"
		sep=', '
	done
	printf '}}\n'
}

record_claude_code() {
	need "$CLAUDE" @anthropic-ai/claude-code@2.1.332
	root=$WORKROOT/claude-code
	rm -rf "$root"
	mkdir -p "$root/home" "$root/work/.claude" "$root/state"
	cp "$here/hook.sh" "$root/hook.sh"
	hooks_json SessionStart UserPromptSubmit PostToolUse PostToolUseFailure Stop >"$root/work/.claude/settings.json"
	echo "claude $("$CLAUDE" --version)"
	start_fakellm "$here/claude-code.yaml"
	run() {
		(cd "$root/work" && env -i HOME="$root/home" PATH="$(dirname "$CLAUDE"):$PATHS" HOOK_STATE="$root/state" \
			ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=dummy ANTHROPIC_MODEL=claude-fake-1 \
			ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-fake-1 ANTHROPIC_DEFAULT_SONNET_MODEL=claude-fake-1 ANTHROPIC_DEFAULT_OPUS_MODEL=claude-fake-1 \
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
			sh -c 'echo $$ >"$0"; exec "$@"' "$root/agent.pid" timeout 300 "$CLAUDE" "$@" --allowedTools Bash --output-format stream-json --verbose) \
			>>"$root/stream.jsonl" 2>>"$root/stderr.txt" </dev/null
	}
	run -p "Run ls /nonexistent, then echo hello and pwd, and tell me what happened."
	run --continue -p /compact
	run --continue -p "Now run false."
	# Ctrl-C while a tool runs, then while the model is answering.
	run --continue -p "Run the slow loop." || true &
	interrupt_on toolu_fol_5 "$root/home/.claude/projects"
	wait $! || true
	run --continue -p "Say something, slowly." || true &
	interrupt_on "Say something, slowly." "$root/home/.claude/projects"
	wait $! || true
	stop_fakellm
	mapfile -t files < <(find "$root/home/.claude/projects" -maxdepth 2 -name '*.jsonl' | sort)
	if [ ${#files[@]} -ne 1 ]; then
		echo "claude-code: want one session file, found ${#files[@]}: ${files[*]}" >&2
		exit 1
	fi
	"$WORKROOT/bin/scrub" -max 2000 -keep 200 -empty tools,shape <"${files[0]}" >"$root/session.jsonl"
	keep "${files[0]}" "$root/session.jsonl" claude-code.jsonl.gz
}

record_codex() {
	need "$CODEX" @openai/codex@0.171.0
	root=$WORKROOT/codex
	rm -rf "$root"
	mkdir -p "$root/home" "$root/work" "$root/codex-home" "$root/state"
	cp "$here/hook.sh" "$root/hook.sh"
	hooks_json SessionStart UserPromptSubmit PostToolUse Stop >"$root/codex-home/hooks.json"
	echo "$("$CODEX" --version)"
	start_fakellm "$here/codex.yaml"
	cat >"$root/codex-home/config.toml" <<TOML
model = "gpt-fake-1"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
model_auto_compact_token_limit = 10000

[model_providers.fake]
name = "fake"
base_url = "$url/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
TOML
	run() {
		(cd "$root/work" && env -i HOME="$root/home" CODEX_HOME="$root/codex-home" FAKE_API_KEY=dummy HOOK_STATE="$root/state" \
			PATH="$(dirname "$CODEX"):$PATHS" \
			sh -c 'echo $$ >"$0"; exec "$@"' "$root/agent.pid" \
			timeout 300 "$CODEX" exec --dangerously-bypass-hook-trust --skip-git-repo-check --json "$@") \
			>>"$root/events.jsonl" 2>>"$root/stderr.txt" </dev/null
	}
	run "Run ls /nonexistent, then echo hello and pwd, and tell me what happened."
	run resume --last "Now run false."
	# Ctrl-C while a tool runs.
	run resume --last "Run the slow loop." || true &
	interrupt_on call_fol_5 "$root/codex-home/sessions"
	wait $! || true
	stop_fakellm
	mapfile -t files < <(find "$root/codex-home/sessions" -name 'rollout-*.jsonl' | sort)
	if [ ${#files[@]} -ne 1 ]; then
		echo "codex: want one rollout file, found ${#files[@]}: ${files[*]}" >&2
		exit 1
	fi
	"$WORKROOT/bin/scrub" -max 2000 -keep 200 <"${files[0]}" >"$root/rollout.jsonl"
	keep "${files[0]}" "$root/rollout.jsonl" codex.jsonl.gz
}

agents=("$@")
[ ${#agents[@]} -gt 0 ] || agents=(claude-code codex)
for a in "${agents[@]}"; do
	case "$a" in
	claude-code) record_claude_code ;;
	codex) record_codex ;;
	*) echo "record.sh: unknown agent $a (claude-code, codex)" >&2; exit 2 ;;
	esac
done
