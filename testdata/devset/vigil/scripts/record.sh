#!/bin/bash
# record.sh [NAME...]: records vigil's own agent on the scripted scenarios in this
# folder (NAME.yaml, all of them by default) and copies each session JSONL to
# testdata/devset/vigil/NAME.jsonl. Offline: the model is fakellm.
#
# Run from the repository root:
#   bash testdata/devset/vigil/scripts/record.sh
# By default it builds ./cmd/vigil and ./cmd/fakellm from the checkout (what
# `go run` would run) into $WORKROOT/bin; VIGIL and FAKELLM name other binaries.
# WORKROOT (default /tmp/vigil-devset) holds the throwaway work folders.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(dirname "$here")
WORKROOT=${WORKROOT:-/tmp/vigil-devset}
if [ -z "${VIGIL:-}" ] || [ -z "${FAKELLM:-}" ]; then
	mkdir -p "$WORKROOT/bin"
	go build -o "$WORKROOT/bin/vigil" ./cmd/vigil
	go build -o "$WORKROOT/bin/fakellm" ./cmd/fakellm
	VIGIL=$WORKROOT/bin/vigil FAKELLM=$WORKROOT/bin/fakellm
fi

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$here"/*.yaml; do names+=("$(basename "$f" .yaml)"); done
fi

for name in "${names[@]}"; do
	script=$here/$name.yaml
	kind=$(sed -n 's/^# fixture: //p' "$script")
	prompt=$(sed -n 's/^# prompt: //p' "$script")
	root=$WORKROOT/$name
	rm -rf "$root"
	mkdir -p "$root/agent"
	sh "$here/fixture.sh" "$kind" "$root/work"

	setsid "$FAKELLM" --script "$script" --addr 127.0.0.1:0 --log "$root/fakellm.log" >"$root/fakellm.out" 2>&1 &
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
	printf 'providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: m, contextWindow: 200000, maxTokens: 4096}\n' "$url" >"$root/agent/models.yml"

	status=0
	(cd "$root/work" && VIGIL_AGENT_DIR=$root/agent HOME=$root "$VIGIL" -p "$prompt" -m fake/m) \
		>"$root/answer.txt" 2>"$root/stderr.txt" || status=$?
	kill -- -"$fpid" 2>/dev/null || true
	wait "$fpid" 2>/dev/null || true
	if [ "$status" -ne 0 ]; then
		echo "$name: vigil exited $status:" >&2; cat "$root/stderr.txt" >&2
		exit 1
	fi
	if grep -q '"rule":"anything else"' "$root/fakellm.log"; then
		echo "$name: warning: the agent sent requests the script does not cover (see $root/fakellm.log)" >&2
	fi
	mapfile -t files < <(find "$root/agent/sessions" -mindepth 2 -maxdepth 2 -name '*.jsonl' | sort)
	if [ ${#files[@]} -ne 1 ]; then
		echo "$name: want one session file, found ${#files[@]}: ${files[*]}" >&2
		exit 1
	fi
	cp "${files[0]}" "$out/$name.jsonl"
	echo "$name: $(wc -l <"$out/$name.jsonl") lines -> $out/$name.jsonl; answer: $(head -c 120 "$root/answer.txt")"
done
