#!/bin/sh
# fixture.sh KIND DIR: lays out the small Python project a scenario works on.
# KIND: calc (add() subtracts), deps (needs two local packages), net (calc plus a
# test that needs a server), prices (parse_price() cannot read "$1,234.50"),
# server (calc plus a test that needs the price server in tools/, not started),
# export (a slow batch export of orders.csv, about 15 s, that logs its progress),
# text (slugify() used in three modules; the tests pass), migrate (tools/migrate asks
# "Continue? [y/N]" and gives up without a terminal unless given --yes), build (build.sh,
# three stages 6 s apart, logs its progress), buildlock (the same with a stale
# .build.lock, so the build waits at its first line for 45 s, then gives up),
# serve (server.py, which fails at start on a quoted port in server.ini), worker (worker.py,
# a background job that ignores SIGTERM and stops on SIGINT; it exits by itself after 60 s).
set -eu
kind=$1 dir=$2
mkdir -p "$dir" && cd "$dir"
git init -q .
calc() {
cat > calc.py <<'PY'
def add(a, b):
    return a - b


def mul(a, b):
    return a * b
PY
cat > test_calc.py <<'PY'
import unittest

from calc import add, mul


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)


if __name__ == "__main__":
    unittest.main()
PY
}
case $kind in
calc) calc ;;
net)
calc
cat > test_fetch.py <<'PY'
import socket
import unittest


class TestFetch(unittest.TestCase):
    def test_fetch(self):
        # Needs the price server on 127.0.0.1:9.
        with socket.create_connection(("127.0.0.1", 9), timeout=2) as s:
            s.sendall(b"GET /price\n")
            self.assertTrue(s.recv(64))


if __name__ == "__main__":
    unittest.main()
PY
;;
deps)
mkdir -p vendor/slugkit vendor/colorkit tools
cat > vendor/slugkit/__init__.py <<'PY'
def slug(s):
    return "-".join(s.lower().split())
PY
cat > vendor/colorkit/__init__.py <<'PY'
def red(s):
    return "\033[31m" + s + "\033[0m"
PY
cat > tools/install <<'SH'
#!/bin/sh
# tools/install NAME: installs a vendored package into deps/.
set -e
[ -d "vendor/$1" ] || { echo "install: no package $1" >&2; exit 1; }
mkdir -p deps && cp -r "vendor/$1" deps/ && echo "installed $1 into deps/"
SH
chmod +x tools/install
cat > app.py <<'PY'
from colorkit import red
from slugkit import slug


def title(s):
    return red(slug(s))
PY
cat > test_app.py <<'PY'
import unittest

from app import title


class TestApp(unittest.TestCase):
    def test_title(self):
        self.assertIn("hello-world", title("Hello World"))


if __name__ == "__main__":
    unittest.main()
PY
;;
prices)
cat > prices.py <<'PY'
def parse_price(s):
    return float(s)
PY
cat > test_prices.py <<'PY'
import unittest

from prices import parse_price


class TestPrices(unittest.TestCase):
    def test_plain(self):
        self.assertEqual(parse_price("7"), 7.0)

    def test_dollars(self):
        self.assertEqual(parse_price("$1,234.50"), 1234.5)


if __name__ == "__main__":
    unittest.main()
PY
;;
server)
calc
mkdir -p tools
cat > tools/price_server.py <<'PY'
"""The price server test_fetch talks to: answers each line with a price.

Run it in the background: python3 tools/price_server.py &
It listens on 127.0.0.1:8765 and exits after 60 s without a connection.
"""
import socket

with socket.create_server(("127.0.0.1", 8765)) as srv:
    srv.settimeout(60)
    print("price server listening on 127.0.0.1:8765", flush=True)
    while True:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            break
        with conn:
            conn.recv(64)
            conn.sendall(b"42.00\n")
PY
cat > test_fetch.py <<'PY'
import socket
import unittest


class TestFetch(unittest.TestCase):
    def test_fetch(self):
        # Needs the price server (tools/price_server.py) on 127.0.0.1:8765.
        with socket.create_connection(("127.0.0.1", 8765), timeout=2) as s:
            s.sendall(b"GET /price\n")
            self.assertTrue(s.recv(64))


if __name__ == "__main__":
    unittest.main()
PY
cat > README.md <<'MD'
# calc

Run the tests with `python3 -m unittest -q`. test_fetch needs the price server:
start it first with `python3 tools/price_server.py &` (it stops by itself after a
minute without requests).
MD
;;
export)
awk 'BEGIN { print "id,customer,total"; for (i = 1; i <= 1200; i++) { t = sprintf("%.2f", (i * 37) % 500 + 0.99); if (i % 400 == 17) t = "n/a"; printf "%d,c%04d,%s\n", i, i % 97, t } }' > orders.csv
cat > export.py <<'PY'
"""Exports orders.csv to out/orders.json in batches of 400.

The upload API it feeds allows one batch every 5 seconds, so a full export
takes about 15 s; progress goes to stdout.
"""
import csv
import json
import os
import time

BATCH = 400
PAUSE = 5.0


def main():
    with open("orders.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    os.makedirs("out", exist_ok=True)
    done, skipped = [], 0
    batches = (len(rows) + BATCH - 1) // BATCH
    for i in range(0, len(rows), BATCH):
        for r in rows[i:i + BATCH]:
            try:
                r["total"] = float(r["total"])
            except ValueError:
                skipped += 1
                continue
            done.append(r)
        time.sleep(PAUSE)
        print(f"batch {i // BATCH + 1}/{batches}: {len(done)} orders", flush=True)
    with open("out/orders.json", "w") as f:
        json.dump(done, f)
    print(f"export finished: {len(done)} orders written to out/orders.json, {skipped} skipped (bad total)", flush=True)


if __name__ == "__main__":
    main()
PY
printf 'out/\n*.log\n' > .gitignore
;;
text)
cat > textutil.py <<'PY'
import re


def slugify(title):
    """Lower-case words joined by hyphens, punctuation dropped."""
    words = re.findall(r"[a-z0-9]+", title.lower())
    return "-".join(words)
PY
cat > blog.py <<'PY'
from textutil import slugify


def post_url(title):
    return "/blog/" + slugify(title) + "/"
PY
cat > feed.py <<'PY'
from textutil import slugify


def entry_id(title, year):
    return "tag:example.org,%d:%s" % (year, slugify(title))
PY
cat > test_text.py <<'PY'
import unittest

from blog import post_url
from feed import entry_id
from textutil import slugify


class TestText(unittest.TestCase):
    def test_slugify(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_post_url(self):
        self.assertEqual(post_url("Go 1.26 is out"), "/blog/go-1-26-is-out/")

    def test_entry_id(self):
        self.assertEqual(entry_id("Hello", 2026), "tag:example.org,2026:hello")


if __name__ == "__main__":
    unittest.main()
PY
;;
migrate)
mkdir -p tools migrations db
printf 'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);\n' > migrations/001_users.sql
printf 'CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER, total REAL);\n' > migrations/002_orders.sql
: > db/applied.txt
cat > tools/migrate <<'SH'
#!/bin/sh
# tools/migrate [--yes]: applies the pending migrations in migrations/ (listed in db/applied.txt).
set -e
case "${1:-}" in
-h|--help)
	echo "usage: tools/migrate [--yes]"
	echo "Applies the pending migrations in migrations/ and records them in db/applied.txt."
	echo "It asks before changing anything, on the terminal."
	echo "  --yes   apply without asking (for scripts and CI, where there is no terminal)"
	exit 0 ;;
--yes) ask=no ;;
"") ask=yes ;;
*) echo "migrate: unknown option $1 (see --help)" >&2; exit 2 ;;
esac
pending=
for m in migrations/*.sql; do
	n=$(basename "$m")
	grep -qx "$n" db/applied.txt || pending="$pending $n"
done
[ -n "$pending" ] || { echo "nothing to apply"; exit 0; }
echo "pending:$pending"
if [ "$ask" = yes ]; then
	printf 'Continue? [y/N] '
	if [ ! -t 0 ]; then echo; echo "migrate: aborted, nothing applied"; exit 1; fi
	read -r answer
	case $answer in y|Y) ;; *) echo "migrate: aborted, nothing applied"; exit 1 ;; esac
fi
for n in $pending; do echo "$n" >> db/applied.txt; echo "applied $n"; done
SH
chmod +x tools/migrate
cat > test_db.py <<'PY'
import unittest


class TestDB(unittest.TestCase):
    def test_migrated(self):
        with open("db/applied.txt") as f:
            applied = f.read().split()
        self.assertEqual(applied, ["001_users.sql", "002_orders.sql"])


if __name__ == "__main__":
    unittest.main()
PY
;;
build|buildlock)
mkdir -p src
printf 'print("app")\n' > src/app.py
cat > build.sh <<'SH'
#!/bin/sh
# build.sh: builds dist/app.tar in three stages (about 18 s); progress goes to stdout.
# Only one build runs at a time: a build waits while .build.lock exists.
set -e
waited=0
while [ -e .build.lock ]; do
	[ "$waited" -eq 0 ] && echo "waiting for .build.lock (another build holds it)"
	sleep 1
	waited=$((waited + 1))
	[ "$waited" -lt 45 ] || { echo "build: gave up waiting for .build.lock"; exit 1; }
done
echo "[1/3] compiling"
sleep 6
echo "[2/3] linking"
sleep 6
echo "[3/3] packaging"
sleep 6
mkdir -p dist && tar cf dist/app.tar src
echo "build finished: dist/app.tar"
SH
printf 'dist/\n*.log\n.build.lock\n' > .gitignore
[ "$kind" = buildlock ] && echo "pid 4242" > .build.lock
;;
serve)
cat > server.ini <<'INI'
[server]
port = "18123"
INI
cat > server.py <<'PY'
"""The app's server: answers GET /health on 127.0.0.1 at the port in server.ini.

Start it in the background: python3 server.py > server.log 2>&1 &
It writes its pid to server.pid and stops by itself after 20 s without a request.
"""
import configparser
import http.server
import os

cfg = configparser.ConfigParser()
cfg.read("server.ini")
port = int(cfg["server"]["port"])


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"ok\n" if self.path == "/health" else b"not found\n"
        self.send_response(200 if self.path == "/health" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


srv = http.server.HTTPServer(("127.0.0.1", port), Health)
srv.timeout = 20
idle = []
srv.handle_timeout = lambda: idle.append(True)
with open("server.pid", "w") as f:
    f.write("%d\n" % os.getpid())
print("serving on 127.0.0.1:%d" % port, flush=True)
while not idle:
    srv.handle_request()
srv.server_close()
PY
printf '*.log\nserver.pid\n' > .gitignore
;;
worker)
cat > worker.py <<'PY'
"""Re-indexes the search data in the background; writes its pid to worker.pid.

It finishes the batch it is on before stopping, so it ignores SIGTERM: stop it
with SIGINT (kill -INT PID). It stops by itself after 60 s.
"""
import os
import signal
import sys
import time


def on_term(signum, frame):
    print("SIGTERM ignored: finishing the batch (stop with SIGINT)", flush=True)


def on_int(signum, frame):
    print("stopped (SIGINT)", flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, on_term)
signal.signal(signal.SIGINT, on_int)
with open("worker.pid", "w") as f:
    f.write("%d\n" % os.getpid())
print("indexing", flush=True)
for _ in range(60):
    time.sleep(1)
print("done", flush=True)
PY
printf '*.log\nworker.pid\n' > .gitignore
;;
*) echo "fixture: unknown kind $kind" >&2; exit 2 ;;
esac
git add -A && git -c user.name=fixture -c user.email=fixture@example.invalid commit -qm fixture
