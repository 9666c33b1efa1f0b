#!/usr/bin/env bash
# Checks the deployment files in Deploy/ as far as possible without a container engine:
#
#   - .gitignore and .dockerignore keep build folders (.build*) out of git and of the image;
#   - the release build as deployed (Scripts/build-release.sh) succeeds (scratch folder
#     .build-release), the Dockerfile builds with that script, and the binary's request path
#     makes no dynamic exclusivity checks;
#   - every shared library the binaries name comes from a package of the runtime image:
#     debian:bookworm-slim's own, or one the Dockerfile installs (and ldd finds them all);
#   - the SwiftPM resource bundle (the console files) sits next to the binary, and the
#     Dockerfile copies it next to the binary in the image;
#   - the systemd unit passes systemd-analyze verify (when systemd-analyze exists);
#   - the Kubernetes manifest probes /health and /ready and its grace period outlasts the
#     long-poll timeout;
#   - the Grafana dashboard is valid JSON, uses the ${DS_PROMETHEUS} input, and queries only
#     metrics the node exports (the list below, as documented in Docs/operations.md);
#   - a smoke run of the release binary laid out as in the image (binary and bundle alone in one
#     directory): the Dockerfile's HEALTHCHECK command and the unit's readiness wait succeed
#     against it, it serves /console, and SIGTERM stops it with status 0.
#
# Usage: Scripts/check-deploy.sh [--no-build] [--no-run]
#   --no-build  reuse the binaries already in .build-release
#   --no-run    skip the smoke run
# Exit status: 0 when every check passed, 1 otherwise (each failure is printed).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
SCRATCH=.build-release
BUILD=1
RUN=1
for argument in "$@"; do
    case "$argument" in
        --no-build) BUILD=0 ;;
        --no-run) RUN=0 ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $argument" >&2; exit 2 ;;
    esac
done

FAILURES=0
pass() { printf 'ok    %s\n' "$1"; }
fail() { printf 'FAIL  %s\n' "$1"; FAILURES=$((FAILURES + 1)); }
skip() { printf 'skip  %s\n' "$1"; }

# Metrics the node exports (Docs/operations.md); histograms also as _bucket, _sum and _count.
COUNTERS_AND_GAUGES="pubnode_messages_published_total pubnode_messages_delivered_total pubnode_buffer_gaps_total
pubnode_rate_limited_total pubnode_open_connections pubnode_parked_polls pubnode_channels pubnode_channel_groups
pubnode_presence_occupancy pubnode_http_requests_total pubnode_history_pending_writes
pubnode_history_write_lag_seconds pubnode_history_commits_total pubnode_hook_pending pubnode_hook_in_flight
pubnode_hook_dead_letters pubnode_hook_delivered_total pubnode_hook_retries_total pubnode_hook_dropped_total
pubnode_hook_dead_lettered_total pubnode_ready pubnode_start_time_seconds process_resident_memory_bytes
process_open_fds process_cpu_seconds_total pubnode_accept_failures_total pubnode_hook_spilled"
HISTOGRAMS="pubnode_http_request_duration_seconds pubnode_history_commit_duration_seconds"

# --- ignore files ---------------------------------------------------------------------------
grep -qxF '.build*/' .gitignore && pass ".gitignore ignores .build*/" || fail ".gitignore must hold .build*/"
if [[ -f .dockerignore ]] && grep -qE '^\.build\*' .dockerignore; then
    pass ".dockerignore excludes .build*"
else
    fail ".dockerignore must exclude .build*"
fi

# --- release build --------------------------------------------------------------------------
if [[ $BUILD == 1 ]]; then
    mkdir -p "$SCRATCH"
    for product in pubnode pubnode-cli; do
        if bash Scripts/build-release.sh "$product" --scratch-path "$SCRATCH" >"$SCRATCH/check-deploy.log" 2>&1; then
            pass "release build of $product (Scripts/build-release.sh)"
        else
            tail -20 "$SCRATCH/check-deploy.log"
            fail "release build of $product (log: $SCRATCH/check-deploy.log)"
        fi
    done
fi
BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path 2>/dev/null || echo "$SCRATCH/release")

# --- shared libraries against the runtime image ---------------------------------------------
# Every library a binary names (ELF NEEDED) must come from a package of debian:bookworm-slim
# itself or one the Dockerfile's runtime stage installs; apt brings those packages' own
# dependencies. ldd then checks that nothing is missing on this machine.
BASE_PACKAGES="libc6 libgcc-s1 libstdc++6 zlib1g"
RUNTIME_STAGE=$(awk '/^FROM /{stage++} stage==2' Deploy/Dockerfile)
INSTALLED=$(sed -n 's/.*apt-get install -y --no-install-recommends \([^&\\]*\).*/\1/p' <<<"$RUNTIME_STAGE")
ALLOWED=" $BASE_PACKAGES $INSTALLED "
package_of() {  # the bookworm package providing a shared library, by its name
    case "$1" in
        ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libutil.so*|libresolv.so*) echo libc6 ;;
        libstdc++.so*) echo libstdc++6 ;;
        libgcc_s.so*) echo libgcc-s1 ;;
        libsqlite3.so*) echo libsqlite3-0 ;;
        libz.so*) echo zlib1g ;;
        libcurl.so.4*) echo libcurl4 ;;
        *) echo "unknown:$1" ;;
    esac
}
for binary in pubnode pubnode-cli; do
    if [[ ! -x "$BIN/$binary" ]]; then fail "$BIN/$binary was not built"; continue; fi
    needed=$(readelf -d "$BIN/$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    missing=""
    for library in $needed; do
        package=$(package_of "$library")
        [[ "$ALLOWED" == *" $package "* ]] || missing+=" $library ($package)"
    done
    if ldd "$BIN/$binary" | grep -q 'not found'; then missing+=" (ldd: a library is not found)"; fi
    if [[ -z "$missing" ]]; then
        pass "$binary needs only libraries of the runtime image: $(tr '\n' ' ' <<<"$needed")"
    else
        fail "$binary needs libraries the runtime image lacks:$missing"
    fi
done

# --- resource bundle ------------------------------------------------------------------------
if [[ -f "$BIN/PubNode_PubNodeServer.resources/Console/index.html" ]]; then
    pass "the console bundle PubNode_PubNodeServer.resources sits next to the binary"
else
    fail "no PubNode_PubNodeServer.resources/Console/index.html next to $BIN/pubnode"
fi
if grep -q 'PubNode_PubNodeServer.resources /usr/local/bin/PubNode_PubNodeServer.resources' Deploy/Dockerfile; then
    pass "the Dockerfile copies the bundle next to /usr/local/bin/pubnode"
else
    fail "the Dockerfile must copy PubNode_PubNodeServer.resources next to the binary"
fi

# --- the build as deployed ------------------------------------------------------------------
if grep -qE 'build-release\.sh pubnode( |\\|$)' Deploy/Dockerfile && grep -q 'build-release\.sh pubnode-cli' Deploy/Dockerfile; then
    pass "the Dockerfile builds pubnode and pubnode-cli with Scripts/build-release.sh"
else
    fail "the Dockerfile must build both binaries with Scripts/build-release.sh"
fi
# The handler's read of a request, checked, calls swift_beginAccess for its stored state. (awk
# reads nm's whole output: stopping early would end nm with SIGPIPE, failing the pipeline.)
read_symbol=$(nm "$BIN/pubnode" 2>/dev/null | awk '$3 ~ /^\$s13PubNodeServer0aB11HTTPHandlerC11channelRead7context4data/ && !found++ { print $3 }') || read_symbol=""
listing=""
[[ -z "$read_symbol" ]] || listing=$(objdump -d --no-show-raw-insn --disassemble="$read_symbol" "$BIN/pubnode" 2>/dev/null) || listing=""
checks=$(grep -c 'swift_beginAccess' <<<"$listing") || true
if [[ -z "$read_symbol" ]]; then
    fail "no PubNodeHTTPHandler.channelRead symbol in $BIN/pubnode"
elif ! grep -qF "<$read_symbol>:" <<<"$listing"; then
    fail "objdump could not disassemble $read_symbol"
elif (( checks > 0 )); then
    fail "the release binary still makes dynamic exclusivity checks (build it with Scripts/build-release.sh)"
else
    pass "the release binary makes no dynamic exclusivity checks in the request path"
fi

# --- systemd unit ---------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null; then
    unit_dir=$(mktemp -d)
    # verify wants the executable to exist: point the copy at the release build.
    sed "s|/usr/local/bin/pubnode|$(cd "$BIN" && pwd)/pubnode|" Deploy/pubnode.service >"$unit_dir/pubnode.service"
    if output=$(systemd-analyze verify "$unit_dir/pubnode.service" 2>&1) && [[ -z "$output" ]]; then
        pass "systemd-analyze verify Deploy/pubnode.service"
    else
        fail "systemd-analyze verify Deploy/pubnode.service: $output"
    fi
    rm -rf "$unit_dir"
else
    skip "systemd-analyze not installed"
fi
for flag in $(grep -o -- '--[a-z-]*' <(grep '^ExecStart=' Deploy/pubnode.service)); do
    if [[ $flag == --config ]] || grep -q -- "\`$flag\`" Docs/configuration.md; then
        pass "the unit's flag $flag exists"
    else
        fail "the unit uses $flag, which Docs/configuration.md does not list"
    fi
done

# --- Kubernetes manifest --------------------------------------------------------------------
grep -q 'path: /health' Deploy/kubernetes.yaml && grep -q 'path: /ready' Deploy/kubernetes.yaml \
    && pass "kubernetes.yaml probes /health and /ready" || fail "kubernetes.yaml must probe /health and /ready"
grace=$(sed -n 's/.*terminationGracePeriodSeconds: *\([0-9]*\).*/\1/p' Deploy/kubernetes.yaml)
long_poll=$(sed -n 's/.*`longPollTimeoutSeconds`.*| `\([0-9]*\)` |.*/\1/p' Docs/configuration.md)
if [[ -n "$grace" && -n "$long_poll" && "$grace" -gt "$long_poll" ]]; then
    pass "grace period ${grace}s outlasts the ${long_poll}s long-poll timeout"
else
    fail "terminationGracePeriodSeconds (${grace:-none}) must exceed the long-poll timeout (${long_poll:-unknown})"
fi

# --- Grafana dashboard ----------------------------------------------------------------------
if report=$(COUNTERS_AND_GAUGES="$COUNTERS_AND_GAUGES" HISTOGRAMS="$HISTOGRAMS" python3 - Deploy/grafana-dashboard.json <<'PY'
import json, os, re, sys
dashboard = json.load(open(sys.argv[1]))
known = set(os.environ["COUNTERS_AND_GAUGES"].split())
for name in os.environ["HISTOGRAMS"].split():
    known |= {name + suffix for suffix in ("_bucket", "_sum", "_count")}
problems = []
if dashboard.get("schemaVersion") != 39:
    problems.append("schemaVersion is not 39")
if not any(item.get("name") == "DS_PROMETHEUS" for item in dashboard.get("__inputs", [])):
    problems.append("no DS_PROMETHEUS input")
queried = set()
for panel in dashboard["panels"]:
    if panel["type"] == "row":
        continue
    if panel.get("datasource", {}).get("uid") != "${DS_PROMETHEUS}":
        problems.append(f"panel {panel['title']!r} does not use ${{DS_PROMETHEUS}}")
    for target in panel.get("targets", []):
        queried |= set(re.findall(r"\b((?:pubnode|process)_[a-z_]+)\b", target["expr"]))
for variable in dashboard.get("templating", {}).get("list", []):
    queried |= set(re.findall(r"\b((?:pubnode|process)_[a-z_]+)\b", variable.get("definition", "")))
unknown = sorted(queried - known)
if unknown:
    problems.append("unknown metrics: " + ", ".join(unknown))
print("; ".join(problems) if problems else f"{len(queried)} metrics, all exported")
sys.exit(1 if problems else 0)
PY
); then
    pass "grafana-dashboard.json: $report"
else
    fail "grafana-dashboard.json: $report"
fi

# --- smoke run: HEALTHCHECK and the unit's readiness wait -----------------------------------
if [[ $RUN == 1 && -x "$BIN/pubnode" ]]; then
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    data=$(mktemp -d)
    # Laid out as in the image: the binary and the bundle alone in one directory, away from the
    # build folder (whose path the binary would otherwise fall back on).
    mkdir -p "$data/bin"
    cp "$BIN/pubnode" "$data/bin/"
    cp -R "$BIN/PubNode_PubNodeServer.resources" "$data/bin/"
    mv "$BIN/PubNode_PubNodeServer.resources" "$BIN/PubNode_PubNodeServer.resources.hidden"
    "$data/bin/pubnode" --port "$port" --data-dir "$data" --log-level warning >"$data/node.log" 2>&1 &
    node=$!
    trap 'kill "$node" 2>/dev/null || true; rm -rf "$data"
          mv "$BIN/PubNode_PubNodeServer.resources.hidden" "$BIN/PubNode_PubNodeServer.resources" 2>/dev/null || true' EXIT
    # The unit's ExecStartPost, as systemd runs it ($$ is systemd's escape of $).
    wait_ready=$(sed -n "s/^ExecStartPost=\/bin\/bash -c '\(.*\)'$/\1/p" Deploy/pubnode.service | sed 's/\$\$/$/g; s/\\\\/\\/g')
    if PUBNODE_READY_PORT=$port timeout 30 bash -c "$wait_ready"; then
        pass "the unit's readiness wait returns once /ready answers 200"
    else
        fail "the unit's readiness wait did not see /ready answer 200 within 30 s"
    fi
    # The Dockerfile's HEALTHCHECK command (exec form: bash -c SCRIPT).
    health=$(python3 -c '
import json, re, sys
text = open("Deploy/Dockerfile").read().replace("\\\n", " ")
match = re.search(r"HEALTHCHECK[^\n]*CMD (\[.*\])", text)
print(json.loads(match.group(1))[2])')
    if PUBNODE_PORT=$port timeout 10 bash -c "$health"; then
        pass "the Dockerfile HEALTHCHECK passes against a running node"
    else
        fail "the Dockerfile HEALTHCHECK failed against a running node"
    fi
    console=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET /console/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n' >&3 && head -n 1 <&3) 2>/dev/null || true)
    if [[ "$console" == *" 200 "* ]]; then
        pass "the binary serves /console from the bundle beside it"
    else
        fail "GET /console/ from the binary laid out as in the image: ${console:-no answer}"
    fi
    mv "$BIN/PubNode_PubNodeServer.resources.hidden" "$BIN/PubNode_PubNodeServer.resources"
    kill -TERM "$node"
    if wait "$node"; then pass "SIGTERM drains the node and it exits 0"; else fail "the node did not exit 0 on SIGTERM"; fi
    trap - EXIT
    rm -rf "$data"
else
    skip "smoke run"
fi

if [[ $FAILURES -gt 0 ]]; then
    echo "$FAILURES check(s) failed"
    exit 1
fi
echo "all checks passed"
