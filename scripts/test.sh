#!/usr/bin/env bash
# Install what the tests need (Debian packages gnubg, gcc-avr, simavr, ...) and run the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
BGREF_WITH_TEST_TOOLS=1 BGREF_EXTRAS=test ./scripts/install.sh
echo "== ruff"; .venv/bin/ruff check .
echo "== mypy"; .venv/bin/mypy rules vision calibration firmware_bridge referee
echo "== pytest"
# one BLAS/OpenMP thread per test worker: the workers already fill the cores (oversubscribed BLAS
# made calibration fits ~5x slower on a loaded 2-core machine)
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
exec .venv/bin/python -m pytest -n "${BGREF_TEST_JOBS:-2}" -q "$@"
