#!/usr/bin/env bash
# The Python package's tests (crates/gguf-python/tests, pytest): builds the wheel once (maturin,
# the `ci` profile), installs it into a fresh venv and runs the tests against the CLI and the
# fixtures, after mypy --strict over the package. What the tests need (tests/requirements.txt:
# maturin, pytest and pytest-xdist, mypy, fsspec, pyarrow, Ray, gguf-py) is installed from PyPI
# once into a venv under ~/.cache/ggufscope, named by the requirements' hash; the fresh venv sees
# it through a .pth file, so only the wheel is new.
# Usage: scripts/test-python.sh [--build-wheel | --built-wheel] [PYTEST ARGS...]
#   --build-wheel  only the types' check and the wheel's build (scripts/test.sh runs this beside
#                  the Rust tests)
#   --built-wheel  the tests of the wheel --build-wheel built, without building it again
# Needs GGUFSCOPE_BIN and GGUF_TEST_FIXTURES as scripts/test.sh sets them (else target/ci/…).
set -euo pipefail
cd "$(dirname "$0")/.."

mode=all
case "${1:-}" in
  --build-wheel) mode=build; shift ;;
  --built-wheel) mode=test; shift ;;
esac

python=${PYTHON:-python3}
# Debian's Python comes without venv (python3-venv); install what is missing.
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  echo "installing Debian's python3 and python3-venv"
  apt-get update >&2 && apt-get install -y python3 python3-venv >&2
fi
"$python" -c 'import sys; assert sys.version_info >= (3, 10), "Python 3.10+ needed"'
requirements=crates/gguf-python/tests/requirements.txt
hash=$(sha256sum "$requirements" | cut -c1-12)
deps="${XDG_CACHE_HOME:-$HOME/.cache}/ggufscope/python-deps-$hash"
if [ ! -x "$deps/bin/maturin" ] || [ ! -f "$deps/.complete" ]; then
  echo "installing the Python test dependencies into $deps (once)"
  rm -rf "$deps"
  "$python" -m venv "$deps"
  "$deps/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  touch "$deps/.complete"
fi

wheels=target/wheels-ci
if [ "$mode" != test ]; then
  # The package's types: its Python and the extension module's stubs, strictly.
  "$deps/bin/mypy" --strict --ignore-missing-imports --no-error-summary crates/gguf-python/python/ggufscope
  # In a build folder of its own, so that it never waits on another cargo command's lock.
  rm -rf "$wheels"
  "$deps/bin/maturin" build --quiet --profile ci -m crates/gguf-python/Cargo.toml \
    --target-dir target/python-wheel -o "$wheels"
fi
[ "$mode" = build ] && exit 0
[ -n "$(ls "$wheels"/ggufscope-*.whl 2>/dev/null)" ] || { echo "no wheel in $wheels: build it first" >&2; exit 1; }

venv=target/python-test-venv
"$python" -m venv --clear "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$deps/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/ggufscope-test-deps.pth"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --no-index "$wheels"/ggufscope-*.whl
# The tests import the installed wheel, never the source tree.
cd crates/gguf-python/tests
# A test file to a worker, a worker a core (pytest-xdist): most tests wait on the CLI, a server or
# Ray. `-n 0` among the arguments runs them in one process.
RAY_USAGE_STATS_ENABLED=0 "../../../$venv/bin/python" -m pytest -q -p no:cacheprovider -n auto --dist loadfile "$@" .
