#!/usr/bin/env bash
# Interoperability suite: drives a local pubnode with the official PubNub Python SDK.
#
# Usage: bash Tests/Interop/run.sh [extra pytest args]
#   PUBNODE_BIN  binary to test (default: $REPO/.build/debug/pubnode). It must already be built.
#   PUBNODE_CLI_BIN  pubnode-cli for the crypto crossing tests (default: $REPO/.build/debug/pubnode-cli).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="$REPO/.venv-interop"
BIN="${PUBNODE_BIN:-$REPO/.build/debug/pubnode}"
# The command-line tool, for tests that cross the client library with the SDK.
export PUBNODE_CLI_BIN="${PUBNODE_CLI_BIN:-$REPO/.build/debug/pubnode-cli}"

if [[ ! -x "$BIN" ]]; then
    echo "interop: pubnode binary not found or not executable: $BIN" >&2
    echo "interop: build it first (swift build) or set PUBNODE_BIN" >&2
    exit 2
fi

# shellcheck source=Tests/node-process.sh
source "$REPO/Tests/node-process.sh"
NAME=interop REQUIREMENTS="$HERE/requirements.txt"
node_prepare_venv
node_prepare
PORT="$(node_free_port)"
node_start "$PORT" /time/0 --host 127.0.0.1 --port "$PORT" --data-dir "$DATA_DIR"

set +e
PYTHONDONTWRITEBYTECODE=1 PUBNODE_ORIGIN="127.0.0.1:$PORT" "$VENV/bin/python" -m pytest -q "$HERE" "$@"
STATUS=$?
set -e
exit $STATUS
