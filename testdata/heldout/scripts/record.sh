#!/bin/bash
# record.sh AGENT [NAME...]: records one agent (vigil, claude-code, codex or pi) on
# the held-out scenarios in testdata/heldout/AGENT/scripts/ (NAME.yaml, all of them
# by default), offline against fakellm, and copies each session to
# testdata/heldout/AGENT/: vigil's and pi's unmodified as NAME.jsonl, Claude Code's
# and Codex's scrubbed with transcript/testdata/scrub and gzipped as NAME.jsonl.gz.
# See testdata/heldout/README.md.
#
# Run from the repository root:
#   bash testdata/heldout/scripts/record.sh codex
#   bash testdata/heldout/scripts/record.sh pi offcourse_lint_config_off
#
# A script's header says its fixture (scripts/fixture.sh KIND), its prompt and,
# optionally, a second prompt (prompt2: the user's next message, sent by
# continuing the same session once the first turn ends; fakellm keeps serving
# the same script) and, for Codex, a sandbox (sandbox_mode; default
# danger-full-access).
#
# The agents are the ones the real-agent tests install (internal/cli/realagents*_test.go):
# $VIGIL_AGENTS_DIR, else ~/.cache/vigil/agents, holds claude-code@2.1.332,
# codex@0.171.0 and pi@0.73.1, each an npm prefix; CLAUDE, CODEX and PI name other
# binaries. It builds ./cmd/vigil, ./cmd/fakellm and the scrubber from the
# checkout into $WORKROOT/bin (VIGIL and FAKELLM name other binaries). WORKROOT
# (default /tmp/vigil-heldout) holds the throwaway work folders,
# $WORKROOT/AGENT/NAME/{work,home}.
set -euo pipefail
agent=${1:?usage: record.sh vigil|claude-code|codex|pi [NAME...]}
shift
here=$(cd "$(dirname "$0")" && pwd)
set_dir=$(dirname "$here")
scripts=$set_dir/$agent/scripts
[ -d "$scripts" ] || { echo "record.sh: no scripts for agent $agent ($scripts)" >&2; exit 2; }
WORKROOT=${WORKROOT:-/tmp/vigil-heldout}
cache=${VIGIL_AGENTS_DIR:-$HOME/.cache/vigil/agents}
case $agent in
vigil) ;;
claude-code) bin=${CLAUDE:-$cache/claude-code@2.1.332/node_modules/.bin/claude} ;;
codex) bin=${CODEX:-$cache/codex@0.171.0/node_modules/.bin/codex} ;;
pi) bin=${PI:-$cache/pi@0.73.1/node_modules/.bin/pi} ;;
*) echo "record.sh: unknown agent $agent (want vigil, claude-code, codex or pi)" >&2; exit 2 ;;
esac
if [ "$agent" != vigil ]; then
	[ -x "$bin" ] || { echo "record.sh: no $agent at $bin (run the real-agent tests once, or set CLAUDE/CODEX/PI)" >&2; exit 1; }
	echo "$agent $("$bin" --version 2>&1 | head -1)"
fi
mkdir -p "$WORKROOT/bin"
if [ -z "${VIGIL:-}" ] || [ -z "${FAKELLM:-}" ]; then
	go build -o "$WORKROOT/bin/vigil" ./cmd/vigil
	go build -o "$WORKROOT/bin/fakellm" ./cmd/fakellm
	VIGIL=$WORKROOT/bin/vigil FAKELLM=$WORKROOT/bin/fakellm
fi
go build -o "$WORKROOT/bin/scrub" ./transcript/testdata/scrub
syspath=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# run_agent ROOT URL CONTINUE PROMPT: runs the agent once in ROOT/work; CONTINUE=1
# continues the session the previous run left.
run_agent() {
	local root=$1 url=$2 cont=$3 prompt=$4 c=()
	case $agent in
	vigil)
		[ "$cont" = 1 ] && c=(-c)
		(cd "$root/work" && VIGIL_AGENT_DIR=$root/agent HOME=$root/home timeout 300 "$VIGIL" -p "${c[@]}" "$prompt" -m fake/m) ;;
	claude-code)
		[ "$cont" = 1 ] && c=(--continue)
		(cd "$root/work" && env -i HOME="$root/home" PATH="$(dirname "$bin"):$syspath" \
			ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=dummy ANTHROPIC_MODEL=claude-fake-1 \
			ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-fake-1 ANTHROPIC_DEFAULT_SONNET_MODEL=claude-fake-1 ANTHROPIC_DEFAULT_OPUS_MODEL=claude-fake-1 \
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
			timeout 300 "$bin" -p "${c[@]}" "$prompt" --allowedTools Bash,Read,Edit,Write --output-format stream-json --verbose </dev/null) ;;
	codex)
		local sub=(exec)
		[ "$cont" = 1 ] && sub=(exec resume --last)
		(cd "$root/work" && env -i HOME="$root/home" CODEX_HOME="$root/codex-home" FAKE_API_KEY=dummy PATH="$(dirname "$bin"):$syspath" \
			timeout 300 "$bin" "${sub[@]}" --skip-git-repo-check --json "$prompt" </dev/null) ;;
	pi)
		[ "$cont" = 1 ] && c=(--continue)
		(cd "$root/work" && env -i HOME="$root/home" PI_OFFLINE=1 PATH="$(dirname "$bin"):$syspath" \
			timeout 300 "$bin" -p "${c[@]}" --provider fake --model gpt-fake-1 "$prompt" </dev/null) ;;
	esac
}

# configure ROOT URL SANDBOX: points the agent at fakellm.
configure() {
	local root=$1 url=$2 sandbox=$3
	case $agent in
	vigil)
		mkdir -p "$root/agent"
		printf 'providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: m, contextWindow: 200000, maxTokens: 4096}\n' "$url" >"$root/agent/models.yml" ;;
	codex)
		mkdir -p "$root/codex-home"
		cat >"$root/codex-home/config.toml" <<EOF
model = "gpt-fake-1"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "$sandbox"

[model_providers.fake]
name = "fake"
base_url = "$url/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
EOF
		;;
	pi)
		mkdir -p "$root/home/.pi/agent"
		cat >"$root/home/.pi/agent/models.json" <<EOF
{"providers": {"fake": {"baseUrl": "$url/v1", "api": "openai-completions", "apiKey": "dummy",
  "models": [{"id": "gpt-fake-1", "name": "gpt-fake-1", "reasoning": false, "input": ["text"], "contextWindow": 128000, "maxTokens": 8000, "cost": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 1}}]}}}
EOF
		;;
	esac
}

# session ROOT: the one session file the agent wrote.
session() {
	local root=$1
	case $agent in
	vigil) find "$root/agent/sessions" -mindepth 2 -maxdepth 2 -name '*.jsonl' ;;
	claude-code) find "$root/home/.claude/projects" -name '*.jsonl' ;;
	codex) find "$root/codex-home/sessions" -name 'rollout-*.jsonl' ;;
	pi) find "$root/home/.pi/agent/sessions" -name '*.jsonl' ;;
	esac | sort
}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$scripts"/*.yaml; do names+=("$(basename "$f" .yaml)"); done
fi

for name in "${names[@]}"; do
	src=$scripts/$name.yaml
	kind=$(sed -n 's/^# fixture: //p' "$src")
	prompt=$(sed -n 's/^# prompt: //p' "$src")
	prompt2=$(sed -n 's/^# prompt2: //p' "$src")
	sandbox=$(sed -n 's/^# sandbox: //p' "$src")
	root=$WORKROOT/$agent/$name
	rm -rf "$root"
	mkdir -p "$root/home"
	sh "$here/fixture.sh" "$kind" "$root/work"
	sed "s|@WORK@|$root/work|g" "$src" >"$root/script.yaml"

	setsid "$FAKELLM" --script "$root/script.yaml" --addr 127.0.0.1:0 --log "$root/fakellm.log" >"$root/fakellm.out" 2>&1 &
	fpid=$!
	url=
	for _ in $(seq 1 600); do
		url=$(sed -n 's/^fakellm listening on //p' "$root/fakellm.out" 2>/dev/null | head -1)
		[ -n "$url" ] && break
		sleep 0.1
	done
	if [ -z "$url" ]; then
		echo "$name: fakellm did not start:" >&2; cat "$root/fakellm.out" >&2
		kill -- -"$fpid" 2>/dev/null || true
		exit 1
	fi
	configure "$root" "$url" "${sandbox:-danger-full-access}"

	status=0
	run_agent "$root" "$url" 0 "$prompt" >"$root/out1.txt" 2>"$root/stderr1.txt" || status=$?
	if [ "$status" -eq 0 ] && [ -n "$prompt2" ]; then
		run_agent "$root" "$url" 1 "$prompt2" >"$root/out2.txt" 2>"$root/stderr2.txt" || status=$?
	fi
	kill -- -"$fpid" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "$name: $agent exited $status:" >&2; cat "$root"/stderr*.txt >&2
		exit 1
	fi
	want=$(awk '/^  - name: main/{m=1; next} /^  - name:/{m=0} m && /^      - /{n++} END{print n+0}' "$root/script.yaml")
	got=$(grep -c '"rule":"main"' "$root/fakellm.log" || true)
	if [ "$got" -ne "$want" ]; then
		echo "$name: warning: the agent used $got of the script's $want steps (see $root/fakellm.log)" >&2
	fi
	if grep -q '"rule":"anything else"' "$root/fakellm.log"; then
		echo "$name: warning: the agent sent requests the script does not cover (see $root/fakellm.log)" >&2
	fi
	if grep -qs 'unsupported call' "$root"/stderr*.txt; then
		echo "$name: warning: $agent refused a tool call (see $root/stderr*.txt)" >&2
	fi
	mapfile -t files < <(session "$root")
	if [ ${#files[@]} -ne 1 ]; then
		echo "$name: want one session file, found ${#files[@]}: ${files[*]}" >&2
		exit 1
	fi
	case $agent in
	vigil | pi)
		dst=$set_dir/$agent/$name.jsonl
		cp "${files[0]}" "$dst" ;;
	*)
		"$WORKROOT/bin/scrub" -max 4000 -keep 200 -empty tools,shape <"${files[0]}" >"$root/session.jsonl"
		# The scrubbed copy must have the steps and findings of the session the agent wrote.
		a=$("$VIGIL" review --json "${files[0]}" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
		b=$("$VIGIL" review --json "$root/session.jsonl" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
		if [ "$a" != "$b" ]; then
			echo "$name: the scrubbed session reviews differently from the original" >&2
			exit 1
		fi
		dst=$set_dir/$agent/$name.jsonl.gz
		gzip -9 -n -c "$root/session.jsonl" >"$dst" ;;
	esac
	echo "$name: $got steps -> $dst ($(wc -c <"$dst") bytes)"
done
