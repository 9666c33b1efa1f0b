#!/usr/bin/env bash
# The Markdown report of Scripts/bench.sh (sourced by it; reads its R, ROUNDS, NCHAN, RUN_PUBNODE
# and settings).
# cell SERVER KIND: one formatted table cell.
cell() {
    local s=$1 kind=$2 size=${3:-}
    local ran=0
    [[ $s == pubnode && $RUN_PUBNODE == 1 ]] && ran=1
    [[ $s == nchan && $NCHAN == 1 ]] && ran=1
    [[ $ran == 1 ]] || { echo "—"; return; }
    case "$kind" in
        rps) if [[ -n "${R[$s.publish_rps]:-}" ]]; then
                echo "$(fmt_int "$(awk -v v="${R[$s.publish_rps]}" 'BEGIN { printf "%.0f", v }')") req/s"
            else echo "?"; fi ;;
        publat) echo "$(fmt_ms "${R[$s.publish_p50]:-}") / $(fmt_ms "${R[$s.publish_p99]:-}") ms" ;;
        puberr) echo "${R[$s.publish_errors]:-?}" ;;
        cpu) echo "${R[$s.publish_cpu]:-?} % of one core" ;;
        delivered) echo "$(fmt_int "${R[$s.fan$size.delivered]:-?}") / $(fmt_int "${R[$s.fan$size.expected]:-?}") (errors ${R[$s.fan$size.errors]:-?})" ;;
        fancpu) echo "${R[$s.fan$size.cpu_us]:-?} µs" ;;
        fanmsgcpu) echo "${R[$s.fan$size.messages_cpu_us]:-?} µs" ;;
        fansetup) echo "${R[$s.fan$size.setup_cpu_us]:-?} / ${R[$s.fan$size.close_cpu_us]:-?} µs" ;;
        fanlat) echo "$(fmt_ms "${R[$s.fan$size.delivery_p50_ms]:-}") / $(fmt_ms "${R[$s.fan$size.delivery_p90_ms]:-}") / $(fmt_ms "${R[$s.fan$size.delivery_p99_ms]:-}") / $(fmt_ms "${R[$s.fan$size.delivery_max_ms]:-}") ms" ;;
        rsssub) awk -v a="${R[$s.rss_idle_kib]:-0}" -v b="${R[$s.rss_parked_kib]:-0}" -v n="${R[$s.parked]:-0}" \
            'BEGIN { if (n > 0) printf "%.2f KiB", (b - a) / n; else printf "n/a" }' ;;
        rss) awk -v a="${R[$s.rss_idle_kib]:-0}" -v b="${R[$s.rss_parked_kib]:-0}" \
            'BEGIN { printf "%.1f / %.1f MiB", a / 1024, b / 1024 }' ;;
    esac
}

# fmt_int N: N with thousands separators.
fmt_int() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta' <<<"$1"; }

# fmt_ms V: milliseconds with 2, 1 or 0 decimals depending on magnitude ("?" if missing).
fmt_ms() {
    [[ -n "$1" ]] || { echo "?"; return; }
    awk -v v="$1" 'BEGIN { if (v >= 100) printf "%.0f", v; else if (v >= 10) printf "%.1f", v; else printf "%.2f", v }'
}

row() { printf '| %s | %s | %s |\n' "$1" "$(cell pubnode "${@:2}")" "$(cell nchan "${@:2}")"; }


cpu_model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
swift_version=$(swift --version 2>/dev/null | head -1 || echo unknown)
nchan_version=$(dpkg-query -W -f '${Version}' libnginx-mod-nchan 2>/dev/null || echo unknown)
nginx_version=$(nginx -v 2>&1 | sed 's/^nginx version: //' || echo unknown)

echo
echo "### Benchmark run $(date -u '+%Y-%m-%d %H:%M UTC')"
echo
echo "- Machine: $(nproc) cores ($cpu_model), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)"
echo "- Toolchain: $swift_version"
if [[ $RUN_PUBNODE == 1 ]]; then
    case "$PUBNODE_BIN" in
        */debug/*) build_kind="debug build" ;;
        */release/*) build_kind="release build" ;;
        *) build_kind="build type unknown" ;;
    esac
    # As deployed (`--static-swift-stdlib`), or not: it shows in the figures (fifteenth series).
    libraries=$(ldd "$PUBNODE_BIN" 2>/dev/null || true)
    if [[ -z "$libraries" ]]; then
        build_kind+=", linkage unknown"
    elif [[ "$libraries" == *libswiftCore* ]]; then
        build_kind+=", Swift runtime linked dynamically"
    else
        build_kind+=", Swift runtime linked in"
    fi
    echo "- PubNode: \`${PUBNODE_BIN#"$ROOT"/}\` ($build_kind), history ${PUBNODE_HISTORY/false/off}${PUBNODE_ARGS:+, $PUBNODE_ARGS}"
fi
if [[ $NCHAN == 1 ]]; then echo "- Nchan: $nchan_version on $nginx_version, worker_processes $NCHAN_WORKERS, \`Deploy/nchan/nginx.conf\`"; fi
echo "- Load: \`pubnode-load\` on the same machine over loopback; $PUBLISH_THREADS client event loop(s) for publish, $LOAD_THREADS for park and fan-out"
[[ $ROUNDS == 1 ]] || echo "- $ROUNDS rounds, the servers taking turns, each on a fresh server; medians (deliveries and errors summed)"
echo
echo "| Scenario | PubNode | Nchan |"
echo "| --- | ---: | ---: |"
row "Publish throughput ($CONNECTIONS conns, $PAYLOAD B, ${DURATION} s after ${WARMUP} s warm-up)" rps
row "Publish latency p50 / p99" publat
row "Publish errors" puberr
row "Server CPU during publish run" cpu
for size in $FANOUT_SIZES; do
    row "Fan-out $(fmt_int "$size") subs × $MESSAGES msgs every $INTERVAL_MS ms: delivered" delivered "$size"
    row "Fan-out $(fmt_int "$size") subs: latency p50 / p90 / p99 / max" fanlat "$size"
    row "Fan-out $(fmt_int "$size") subs: server CPU per delivery (whole run)" fancpu "$size"
    row "Fan-out $(fmt_int "$size") subs: server CPU per delivery (the messages only)" fanmsgcpu "$size"
    row "Fan-out $(fmt_int "$size") subs: server CPU per subscriber to connect and park / to close" fansetup "$size"
done
row "RSS per parked subscriber ($(fmt_int "$PARK_SUBS") parked)" rsssub
row "Server RSS idle / with $(fmt_int "$PARK_SUBS") parked" rss

# per_round SERVER METRIC: the metric's value in every round, separated by " / ".
per_round() {
    local values=() round
    for round in $(seq 1 "$ROUNDS"); do values+=("$(awk -v v="${R[$1@$round.$2]:-0}" 'BEGIN { printf "%.0f", v }')"); done
    local IFS=/
    echo "${values[*]}" | sed 's#/# / #g'
}

if [[ $ROUNDS != 1 ]]; then
    echo
    echo "Rounds (PubNode; Nchan):"
    echo "- publish req/s: $(per_round pubnode publish_rps); $(per_round nchan publish_rps)"
    for size in $FANOUT_SIZES; do
        echo "- fan-out $(fmt_int "$size") p99 ms: $(per_round pubnode "fan$size.delivery_p99_ms"); $(per_round nchan "fan$size.delivery_p99_ms")"
    done
fi
