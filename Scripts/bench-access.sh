#!/usr/bin/env bash
# Access Manager's cost on publish: closed-loop publish throughput on the open demo keyset and on
# an Access Manager keyset with a token on every request, side by side on one node, alternating
# ROUNDS times; prints the medians and their ratio (results go to Docs/performance.md, "Access").
#
# Usage: Scripts/bench-access.sh [--no-build]
# Environment (defaults in brackets): SCRATCH [.build], CONNECTIONS [64], DURATION [10],
#   WARMUP [1], PAYLOAD [16], ROUNDS [3], PUBLISH_THREADS [1], PUBNODE_ARGS []
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=Scripts/bench-common.sh
source "$ROOT/Scripts/bench-common.sh"
SCRATCH=${SCRATCH:-$ROOT/.build}
CONNECTIONS=${CONNECTIONS:-64}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-1}
PAYLOAD=${PAYLOAD:-16}
ROUNDS=${ROUNDS:-3}
PUBLISH_THREADS=${PUBLISH_THREADS:-1}
BUILD=1
[[ "${1:-}" == "--no-build" ]] && BUILD=0

log() { echo "bench-access: $*" >&2; }
if [[ $BUILD == 1 ]]; then
    for product in pubnode pubnode-load; do release_build "$product"; done
fi
BIN=$SCRATCH/release/pubnode
LOAD=$SCRATCH/release/pubnode-load
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-bench-access.XXXXXX")
PID=""
cleanup() {
    [[ -n "$PID" ]] && { kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(free_port)
SECRET="sec-bench-$(date +%s%N)"
# shellcheck disable=SC2086
"$BIN" --host 127.0.0.1 --port "$PORT" $PUBNODE_UNLIMITED --data-dir "$WORK/data" --history-enabled false --log-level error \
    --keyset demo:demo --keyset "pub-c-bench:sub-c-bench:$SECRET" ${PUBNODE_ARGS:-} >"$WORK/node.log" 2>&1 &
PID=$!
for _ in $(seq 1 400); do curl -sf "http://127.0.0.1:$PORT/time/0" >/dev/null 2>&1 && break; sleep 0.05; done

# Grant a token for the load tool's channels, signed as the SDKs sign (v2, HMAC-SHA256).
TOKEN=$(python3 - "$PORT" "$SECRET" <<'PY'
import base64, hashlib, hmac, json, sys, time, urllib.parse, urllib.request
port, secret = sys.argv[1], sys.argv[2]
path = "/v3/pam/sub-c-bench/grant"
body = json.dumps({"ttl": 60, "permissions": {"resources": {"channels": {}, "groups": {}, "uuids": {}},
                   "patterns": {"channels": {"^load-.*$": 3}, "groups": {}, "uuids": {}}, "meta": {}}})
query = {"timestamp": str(int(time.time())), "uuid": "bench"}
canonical = "&".join("%s=%s" % (k, urllib.parse.quote(query[k], safe="~")) for k in sorted(query))
signed = "POST\npub-c-bench\n%s\n%s\n%s" % (path, canonical, body)
digest = hmac.new(secret.encode(), signed.encode(), hashlib.sha256).digest()
query["signature"] = "v2." + base64.urlsafe_b64encode(digest).decode().rstrip("=")
request = urllib.request.Request("http://127.0.0.1:%s%s?%s" % (port, path, urllib.parse.urlencode(query)),
                                 data=body.encode(), method="POST", headers={"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(request))["data"]["token"])
PY
)
log "token: ${#TOKEN} characters"

run() {  # run NAME EXTRA-ARGS... -> requests per second
    local out=$WORK/$1.json; shift
    "$LOAD" publish --host 127.0.0.1 --port "$PORT" --json --threads "$PUBLISH_THREADS" --connections "$CONNECTIONS" \
        --duration "$DURATION" --warmup "$WARMUP" --payload-size "$PAYLOAD" --channel-prefix load- "$@" >"$out" 2>&1
    result_field "$out" requests_per_s
}

OPEN=() TOKENED=()
for round in $(seq 1 "$ROUNDS"); do
    OPEN+=("$(run "open-$round")")
    TOKENED+=("$(run "token-$round" --publish-key pub-c-bench --subscribe-key sub-c-bench --auth "$TOKEN")")
    log "round $round: open ${OPEN[-1]} req/s, with a token ${TOKENED[-1]} req/s"
done
grep -q '"Sent"' <(curl -s "http://127.0.0.1:$PORT/publish/pub-c-bench/sub-c-bench/0/load-0/0/1?auth=$TOKEN") \
    || { log "the token was not accepted"; exit 1; }
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/publish/pub-c-bench/sub-c-bench/0/load-0/0/1" | grep -q 403 \
    || { log "the keyset is not guarded"; exit 1; }
M_OPEN=$(median "${OPEN[@]}")
M_TOKEN=$(median "${TOKENED[@]}")
RATIO=$(python3 -c "print('%.1f' % (100.0 * $M_TOKEN / $M_OPEN))")
echo "| Publish, $CONNECTIONS connections, ${PAYLOAD}-byte messages | open keyset | token on every request |"
echo "|---|---|---|"
echo "| Requests/s, median of $ROUNDS alternating rounds | $M_OPEN | $M_TOKEN ($RATIO %) |"
echo "| Rounds | ${OPEN[*]} | ${TOKENED[*]} |"
