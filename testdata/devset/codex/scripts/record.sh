#!/bin/bash
# record.sh [NAME...]: records Codex (codex exec) on the scripted scenarios in this
# folder (NAME.yaml, all of them by default), offline against fakellm, and copies
# each rollout to testdata/devset/codex/NAME.jsonl.gz (scrubbed with
# transcript/testdata/scrub, then gzip -9 -n). See testdata/devset/README.md.
#
# Run from the repository root, with Codex installed under AGENTS:
#   npm install --prefix /tmp/agents @openai/codex@0.171.0
#   bash testdata/devset/codex/scripts/record.sh
# AGENTS (default /tmp/agents) is the npm prefix; CODEX names another binary.
# It builds ./cmd/vigil and ./cmd/fakellm from the checkout into $WORKROOT/bin;
# VIGIL and FAKELLM name other binaries. WORKROOT (default /tmp/vigil-devset)
# holds the throwaway work folders, $WORKROOT/codex/NAME/{work,home,codex-home}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$here")
fixture=$(dirname "$out")/vigil/scripts/fixture.sh
WORKROOT=${WORKROOT:-/tmp/vigil-devset}
AGENTS=${AGENTS:-/tmp/agents}
CODEX=${CODEX:-$AGENTS/node_modules/.bin/codex}
if [ ! -x "$CODEX" ]; then
	echo "no codex at $CODEX: npm install --prefix $AGENTS @openai/codex@0.171.0" >&2
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
echo "$("$CODEX" --version)"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$here"/*.yaml; do names+=("$(basename "$f" .yaml)"); done
fi

for name in "${names[@]}"; do
	src=$here/$name.yaml
	kind=$(sed -n 's/^# fixture: //p' "$src")
	prompt=$(sed -n 's/^# prompt: //p' "$src")
	root=$WORKROOT/codex/$name
	rm -rf "$root"
	mkdir -p "$root/home" "$root/codex-home"
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
	cat >"$root/codex-home/config.toml" <<EOF
model = "gpt-fake-1"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "$url/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
EOF

	status=0
	(cd "$root/work" && env -i HOME="$root/home" CODEX_HOME="$root/codex-home" FAKE_API_KEY=dummy \
		PATH="$(dirname "$CODEX"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		timeout 300 "$CODEX" exec --skip-git-repo-check --json "$prompt") \
		>"$root/events.jsonl" 2>"$root/stderr.txt" </dev/null || status=$?
	kill -- -"$fpid" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "$name: codex exited $status:" >&2; cat "$root/stderr.txt" >&2
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
	if grep -q 'unsupported call' "$root/stderr.txt"; then
		echo "$name: warning: codex refused a tool call (see $root/stderr.txt)" >&2
	fi
	mapfile -t files < <(find "$root/codex-home/sessions" -name 'rollout-*.jsonl' | sort)
	if [ ${#files[@]} -ne 1 ]; then
		echo "$name: want one rollout file, found ${#files[@]}: ${files[*]}" >&2
		exit 1
	fi
	"$WORKROOT/bin/scrub" -max 4000 -keep 200 <"${files[0]}" >"$root/rollout.jsonl"
	# The scrubbed copy must have the steps and findings of the rollout the agent wrote.
	a=$("$VIGIL" review --json "${files[0]}" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
	b=$("$VIGIL" review --json "$root/rollout.jsonl" | sed 's/^{"file":"[^"]*",//; s/,"runs":.*//')
	if [ "$a" != "$b" ]; then
		echo "$name: the scrubbed rollout reviews differently from the original" >&2
		exit 1
	fi
	gzip -9 -n -c "$root/rollout.jsonl" >"$out/$name.jsonl.gz"
	echo "$name: $(wc -l <"$root/rollout.jsonl") lines -> $out/$name.jsonl.gz ($(wc -c <"$out/$name.jsonl.gz") bytes); $("$VIGIL" review "$out/$name.jsonl.gz" | head -1 | sed 's/.*: //')"
done
