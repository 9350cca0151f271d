#!/bin/sh
# Makes docs/img/demo.png, the screenshot of `vigil demo` in README.md and
# docs/tui.md: the demo runs in tmux (100×34), scrolled up to the
# advisor's note once the story ends; capture-pane -e keeps the colours,
# aha turns them into HTML and headless Chromium takes the picture.
# With "end" as the second argument it takes the story's end instead, not
# scrolled: docs/img/demo.sh docs/tui.png end.
# Needs tmux, aha and chromium (Debian packages). Run from the repository.
set -eu
out=${1:-docs/img/demo.png}
at=${2:-note}
tmp=$(mktemp -d)
trap 'tmux -S "$tmp/sock" kill-server 2>/dev/null; rm -rf "$tmp"' EXIT
go build -o "$tmp/vigil" ./cmd/vigil
mkdir "$tmp/home"
tmux -S "$tmp/sock" -f /dev/null new-session -d -x 100 -y 34 \
	"env TERM=xterm-256color HOME=$tmp/home VIGIL_AGENT_DIR=$tmp/home/agent $tmp/vigil demo; sleep 600"
i=0
until tmux -S "$tmp/sock" capture-pane -p | grep -q '○ idle'; do
	i=$((i + 1))
	[ "$i" -lt 120 ] || { echo "demo.sh: the demo did not finish" >&2; exit 1; }
	sleep 0.5
done
if [ "$at" = note ]; then
	tmux -S "$tmp/sock" send-keys PPage
	until tmux -S "$tmp/sock" capture-pane -p | grep -q 'advisor · concern'; do sleep 0.2; done
fi
tmux -S "$tmp/sock" capture-pane -e -p >"$tmp/screen.ansi"
aha --black --title 'vigil demo' <"$tmp/screen.ansi" |
	sed 's|</head>|<style>body{margin:12px;font:15px/1.25 "DejaVu Sans Mono",monospace}pre{margin:0}</style></head>|' >"$tmp/screen.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=940,665 \
	--screenshot="$tmp/shot.png" "file://$tmp/screen.html" >/dev/null 2>&1
cp "$tmp/shot.png" "$out"
echo "wrote $out"
