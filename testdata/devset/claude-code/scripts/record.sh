#!/bin/bash
# record.sh [NAME...]: records Claude Code (claude -p) on the scripted scenarios in
# this folder (NAME.yaml, all of them by default), offline against fakellm, and
# copies each session to testdata/devset/claude-code/NAME.jsonl.gz (scrubbed with
# transcript/testdata/scrub, then gzip -9 -n). See testdata/devset/README.md.
#
# Run from the repository root, with Claude Code installed under AGENTS:
#   npm install --prefix /tmp/agents @anthropic-ai/claude-code@2.1.332
#   bash testdata/devset/claude-code/scripts/record.sh
# AGENTS (default /tmp/agents) is the npm prefix; CLAUDE names another binary.
# It builds ./cmd/vigil and ./cmd/fakellm from the checkout into $WORKROOT/bin;
# VIGIL and FAKELLM name other binaries. WORKROOT (default /tmp/vigil-devset)
# holds the throwaway work folders, $WORKROOT/claude-code/NAME/{work,home}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$here")
fixture=$(dirname "$out")/vigil/scripts/fixture.sh
WORKROOT=${WORKROOT:-/tmp/vigil-devset}
AGENTS=${AGENTS:-/tmp/agents}
CLAUDE=${CLAUDE:-$AGENTS/node_modules/.bin/claude}
if [ ! -x "$CLAUDE" ]; then
	echo "no claude at $CLAUDE: npm install --prefix $AGENTS @anthropic-ai/claude-code@2.1.332" >&2
	exit 1
fi
if [ -z "${VIGIL:-}" ] || [ -z "${FAKELLM:-}" ]; then
	mkdir -p "$WORKROOT/bin"
	go build -o "$WORKROOT/bin/vigil" ./cmd/vigil
	go build -o "$WORKROOT/bin/fakellm" ./cmd/fakellm
	VIGIL=$WORKROOT/bin/vigil FAKELLM=$WORKROOT/bin/fakellm
fi
mkdir -p "$WORKROOT/bin"
go build -o "$WORKROOT/bin/scrub" ./transcript/testdata/scrub
echo "claude $("$CLAUDE" --version)"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$here"/*.yaml; do names+=("$(basename "$f" .yaml)"); done
fi

for name in "${names[@]}"; do
	src=$here/$name.yaml
	kind=$(sed -n 's/^# fixture: //p' "$src")
	prompt=$(sed -n 's/^# prompt: //p' "$src")
	root=$WORKROOT/claude-code/$name
	rm -rf "$root"
	mkdir -p "$root/home"
	sh "$fixture" "$kind" "$root/work"
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

	status=0
	(cd "$root/work" && env -i HOME="$root/home" PATH="$(dirname "$CLAUDE"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=dummy ANTHROPIC_MODEL=claude-fake-1 \
		ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-fake-1 ANTHROPIC_DEFAULT_SONNET_MODEL=claude-fake-1 ANTHROPIC_DEFAULT_OPUS_MODEL=claude-fake-1 \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 \
		timeout 300 "$CLAUDE" -p "$prompt" --allowedTools Bash,Read,Edit,Write --output-format stream-json --verbose) \
		>"$root/stream.jsonl" 2>"$root/stderr.txt" </dev/null || status=$?
	kill -- -"$fpid" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "$name: claude exited $status:" >&2; cat "$root/stderr.txt" >&2
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
	mapfile -t files < <(find "$root/home/.claude/projects" -name '*.jsonl' | sort)
	if [ ${#files[@]} -ne 1 ]; then
		echo "$name: want one session file, found ${#files[@]}: ${files[*]}" >&2
		exit 1
	fi
	"$WORKROOT/bin/scrub" -max 4000 -keep 200 -empty tools,shape <"${files[0]}" >"$root/session.jsonl"
	# The scrubbed copy must have the steps and findings of the session the agent wrote.
	a=$("$VIGIL" review --json "${files[0]}" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
	b=$("$VIGIL" review --json "$root/session.jsonl" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
	if [ "$a" != "$b" ]; then
		echo "$name: the scrubbed session reviews differently from the original" >&2
		exit 1
	fi
	gzip -9 -n -c "$root/session.jsonl" >"$out/$name.jsonl.gz"
	echo "$name: $(wc -l <"$root/session.jsonl") lines -> $out/$name.jsonl.gz ($(wc -c <"$out/$name.jsonl.gz") bytes); $("$VIGIL" review "$out/$name.jsonl.gz" | head -1 | sed 's/.*: //')"
done
