#!/usr/bin/env bash
# Install bgref into ./.venv (and the Debian packages it uses), on a fresh Debian 12 as root.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then SUDO=sudo; fi

apt_install() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing Debian packages: ${missing[*]}"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null || ! "$PY" -c 'import ensurepip, venv' 2>/dev/null; then
    apt_install python3 python3-venv python3-pip
    PY=python3
fi
# The simulated LED/buzzer device runs the real firmware in simavr when these are present.
apt_install gcc-avr avr-libc binutils-avr libsimavr-dev libelf-dev pkg-config make gcc
if [ "${BGREF_WITH_TEST_TOOLS:-0}" = 1 ]; then
    apt_install gnubg
fi

[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
EXTRAS=${BGREF_EXTRAS:-}
if [ -n "$EXTRAS" ]; then
    .venv/bin/python -m pip install -q -e ".[${EXTRAS}]"
else
    .venv/bin/python -m pip install -q -e .
fi
echo "bgref installed in $(pwd)/.venv (run .venv/bin/bgref --help)"
