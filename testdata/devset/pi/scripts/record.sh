#!/bin/bash
# record.sh [NAME...]: records pi (pi -p) on the scripted scenarios in this folder
# (NAME.yaml, all of them by default), offline against fakellm, and copies each
# session file unmodified to testdata/devset/pi/NAME.jsonl. See
# testdata/devset/README.md.
#
# Run from the repository root, with pi installed under AGENTS:
#   npm install --prefix /tmp/agents @mariozechner/pi-coding-agent@0.73.1
#   bash testdata/devset/pi/scripts/record.sh
# AGENTS (default /tmp/agents) is the npm prefix; PI names another binary.
# It builds ./cmd/vigil and ./cmd/fakellm from the checkout into $WORKROOT/bin;
# VIGIL and FAKELLM name other binaries. WORKROOT (default /tmp/vigil-devset)
# holds the throwaway work folders, $WORKROOT/pi/NAME/{work,home}.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$here")
fixture=$(dirname "$out")/vigil/scripts/fixture.sh
WORKROOT=${WORKROOT:-/tmp/vigil-devset}
AGENTS=${AGENTS:-/tmp/agents}
PI=${PI:-$AGENTS/node_modules/.bin/pi}
if [ ! -x "$PI" ]; then
	echo "no pi at $PI: npm install --prefix $AGENTS @mariozechner/pi-coding-agent@0.73.1" >&2
	exit 1
fi
if [ -z "${VIGIL:-}" ] || [ -z "${FAKELLM:-}" ]; then
	mkdir -p "$WORKROOT/bin"
	go build -o "$WORKROOT/bin/vigil" ./cmd/vigil
	go build -o "$WORKROOT/bin/fakellm" ./cmd/fakellm
	VIGIL=$WORKROOT/bin/vigil FAKELLM=$WORKROOT/bin/fakellm
fi
echo "pi $("$PI" --version 2>&1)"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$here"/*.yaml; do names+=("$(basename "$f" .yaml)"); done
fi

for name in "${names[@]}"; do
	src=$here/$name.yaml
	kind=$(sed -n 's/^# fixture: //p' "$src")
	prompt=$(sed -n 's/^# prompt: //p' "$src")
	root=$WORKROOT/pi/$name
	rm -rf "$root"
	mkdir -p "$root/home/.pi/agent"
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
	cat >"$root/home/.pi/agent/models.json" <<EOF
{"providers": {"fake": {"baseUrl": "$url/v1", "api": "openai-completions", "apiKey": "dummy",
  "models": [{"id": "gpt-fake-1", "name": "gpt-fake-1", "reasoning": false, "input": ["text"], "contextWindow": 128000, "maxTokens": 8000, "cost": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 1}}]}}}
EOF

	status=0
	(cd "$root/work" && env -i HOME="$root/home" PI_OFFLINE=1 \
		PATH="$(dirname "$PI"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
		timeout 300 "$PI" -p --provider fake --model gpt-fake-1 "$prompt") \
		>"$root/answer.txt" 2>"$root/stderr.txt" </dev/null || status=$?
	kill -- -"$fpid" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "$name: pi exited $status:" >&2; cat "$root/stderr.txt" >&2
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
	mapfile -t files < <(find "$root/home/.pi/agent/sessions" -name '*.jsonl' | sort)
	if [ ${#files[@]} -ne 1 ]; then
		echo "$name: want one session file, found ${#files[@]}: ${files[*]}" >&2
		exit 1
	fi
	cp "${files[0]}" "$out/$name.jsonl"
	echo "$name: $(wc -l <"$out/$name.jsonl") lines -> $out/$name.jsonl ($(wc -c <"$out/$name.jsonl") bytes); $("$VIGIL" review "$out/$name.jsonl" | head -1 | sed 's/.*: //')"
done
