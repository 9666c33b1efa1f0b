#!/usr/bin/env bash
# Browser test of the web console: headless Debian Chromium driven by Selenium against a local pubnode.
#
# Usage: bash Tests/Browser/run.sh [extra pytest args]
#   PUBNODE_BIN          binary to test (default: $REPO/.build/debug/pubnode). It must already be built.
#   PUBNODE_SCREENSHOTS  1: save each view to Docs/console/<view>.png (1280x800);
#                        BROWSER_SHOTS_DIR elsewhere, BROWSER_COLOR_SCHEME=dark in the dark theme.
# Needs the Debian packages chromium and chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
VENV="$REPO/.venv-browser"
BIN="${PUBNODE_BIN:-$REPO/.build/debug/pubnode}"

if [[ ! -x "$BIN" ]]; then
    echo "browser: pubnode binary not found or not executable: $BIN" >&2
    echo "browser: build it first (swift build) or set PUBNODE_BIN" >&2
    exit 2
fi
for tool in /usr/bin/chromium /usr/bin/chromedriver; do
    if [[ ! -x "$tool" ]]; then
        echo "browser: $tool is missing (apt-get install chromium chromium-driver)" >&2
        exit 2
    fi
done

# shellcheck source=Tests/node-process.sh
source "$REPO/Tests/node-process.sh"
NAME=browser REQUIREMENTS="$HERE/requirements.txt"
node_prepare_venv
node_prepare
CONFIG="$WORK_DIR/config.json"
PORT="$(node_free_port)"
DEAD_PORT="$(node_free_port)"
ADMIN_TOKEN="browser-test-admin-$RANDOM$RANDOM$RANDOM"

# demo (open) and an Access Manager keyset; an after-publish hook whose target refuses
# connections, so the hooks view has dead letters to show.
cat >"$CONFIG" <<JSON
{"keysets": [{"publishKey": "demo", "subscribeKey": "demo"},
             {"publishKey": "pub-c-secure", "subscribeKey": "sub-c-secure", "secretKey": "secure-secret-for-tests", "accessManager": true}],
 "hooks": [{"name": "audit", "event": "after-publish", "subscribeKey": "demo", "channels": ["orders"],
            "url": "http://127.0.0.1:$DEAD_PORT/audit", "maxAttempts": 1, "retryBaseMs": 10}]}
JSON

node_start "$PORT" /console/ --config "$CONFIG" --host 127.0.0.1 --port "$PORT" --data-dir "$DATA_DIR" \
    --admin-token "$ADMIN_TOKEN"

set +e
PYTHONDONTWRITEBYTECODE=1 PUBNODE_URL="http://127.0.0.1:$PORT" BROWSER_ADMIN_TOKEN="$ADMIN_TOKEN" PUBNODE_BIN="$BIN" \
    "$VENV/bin/python" -m pytest -q "$HERE" "$@"
STATUS=$?
set -e
exit $STATUS
