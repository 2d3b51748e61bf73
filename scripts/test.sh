#!/usr/bin/env bash
# Install what the tests need (Debian packages gnubg, gcc-avr, simavr, ...) and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
BGREF_WITH_TEST_TOOLS=1 BGREF_EXTRAS=test ./scripts/install.sh
echo "== ruff"; .venv/bin/ruff check .
echo "== mypy"; .venv/bin/mypy rules vision calibration firmware_bridge referee
echo "== pytest"
exec .venv/bin/python -m pytest -n "${BGREF_TEST_JOBS:-2}" -q "$@"
