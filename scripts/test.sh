#!/usr/bin/env bash
# Sets up a fresh machine, builds TileLang-MLIR and runs every test suite.
# The last line of output is `N passed, N failed`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
"$ROOT/scripts/build.sh"
exec python3 "$ROOT/scripts/run_tests.py" "$@"
