#!/usr/bin/env bash
# Builds the sstable_inspect extension into a venv (pinned requirements.txt) and runs its tests.
# VENV (default python/.venv) is reused between runs; the Rust build shares the workspace's target/.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${VENV:-$here/.venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements.txt"
export CARGO_TARGET_DIR="$here/../target" VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH"
# The CLI the tests compare with.
cargo build -q -p sstable-inspect --manifest-path "$here/../Cargo.toml"
(cd "$here" && maturin develop -q)
cd "$here" && python -m pytest -q tests
