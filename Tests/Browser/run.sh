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

if [[ ! -x "$VENV/bin/python" ]]; then
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$HERE/requirements.txt"

WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/pubnode-browser.XXXXXX")"
DATA_DIR="$WORK_DIR/data"
LOG="$WORK_DIR/pubnode.log"
CONFIG="$WORK_DIR/config.json"
mkdir -p "$DATA_DIR"
NODE_PID=""
STATUS=1

cleanup() {
    local rc=$?
    if [[ -n "$NODE_PID" ]] && kill -0 "$NODE_PID" 2>/dev/null; then
        kill "$NODE_PID" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$NODE_PID" 2>/dev/null || break
            sleep 0.1
        done
        kill -9 "$NODE_PID" 2>/dev/null || true
        wait "$NODE_PID" 2>/dev/null || true
    fi
    if [[ $rc -ne 0 && -f "$LOG" ]]; then
        echo "---- pubnode log (last 60 lines) ----" >&2
        tail -n 60 "$LOG" >&2 || true
        echo "-------------------------------------" >&2
    fi
    rm -rf "$WORK_DIR"
    exit $rc
}
trap cleanup EXIT

PORT="$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
DEAD_PORT="$("$VENV/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
ADMIN_TOKEN="browser-test-admin-$RANDOM$RANDOM$RANDOM"

# demo (open) and an Access Manager keyset; an after-publish hook whose target refuses
# connections, so the hooks view has dead letters to show.
cat >"$CONFIG" <<JSON
{"keysets": [{"publishKey": "demo", "subscribeKey": "demo"},
             {"publishKey": "pub-c-secure", "subscribeKey": "sub-c-secure", "secretKey": "secure-secret-for-tests", "accessManager": true}],
 "hooks": [{"name": "audit", "event": "after-publish", "subscribeKey": "demo", "channels": ["orders"],
            "url": "http://127.0.0.1:$DEAD_PORT/audit", "maxAttempts": 1, "retryBaseMs": 10}]}
JSON

"$BIN" --config "$CONFIG" --host 127.0.0.1 --port "$PORT" --data-dir "$DATA_DIR" --admin-token "$ADMIN_TOKEN" >"$LOG" 2>&1 &
NODE_PID=$!

if ! "$VENV/bin/python" - "$PORT" "$NODE_PID" <<'PY'
import os, sys, time, urllib.request
port, pid = sys.argv[1], int(sys.argv[2])
deadline = time.monotonic() + 30


def alive():
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


while time.monotonic() < deadline:
    if not alive():
        sys.exit("browser: pubnode exited before becoming ready")
    try:
        with urllib.request.urlopen("http://127.0.0.1:%s/console/" % port, timeout=2) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit("browser: pubnode did not serve /console/ with 200 within 30 s")
PY
then
    exit 1
fi

set +e
PYTHONDONTWRITEBYTECODE=1 PUBNODE_URL="http://127.0.0.1:$PORT" BROWSER_ADMIN_TOKEN="$ADMIN_TOKEN" PUBNODE_BIN="$BIN" \
    "$VENV/bin/python" -m pytest -q "$HERE" "$@"
STATUS=$?
set -e
exit $STATUS
