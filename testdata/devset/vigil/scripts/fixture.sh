#!/bin/sh
# fixture.sh KIND DIR: lays out the small Python project a scenario works on.
# KIND: calc (add() subtracts), deps (needs two local packages), net (calc plus a
# test that needs a server), prices (parse_price() cannot read "$1,234.50").
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
*) echo "fixture: unknown kind $kind" >&2; exit 2 ;;
esac
git add -A && git -c user.name=fixture -c user.email=fixture@example.invalid commit -qm fixture
