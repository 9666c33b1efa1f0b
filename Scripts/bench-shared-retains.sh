#!/usr/bin/env bash
# Counts, per delivery, the reference-count increments (`swift_retain`) of objects that more
# than one event loop retains during a fan-out: each is a write to a cache line another core
# writes too, which costs far more than a retain of an object one loop keeps to itself. Lists
# those objects with the functions that retain them most.
#
# A uprobe on `swift_retain` (the release build links the Swift runtime in, so the probe is set
# on the binary) records every retain with its object and call chain while SUBS subscribers on
# two event loops take MESSAGES messages (`bench-cost.sh fanout`). The first message is counted
# too: each subscriber's first answer after its handshake is its own, so objects retained only
# then show at a third of a retain a delivery (with 3 messages).
#
# Usage: Scripts/bench-shared-retains.sh [--no-build]
# Environment (defaults in brackets): PUBNODE_BIN [release build], SCRATCH [.build], SUBS [2000],
#   MESSAGES [3], LOOPS [2], TOP [12: objects listed]. Needs perf with uprobes (root).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SCRATCH=${SCRATCH:-$ROOT/.build}
[[ "${1:-}" == "--no-build" ]] || { source "$ROOT/Scripts/bench-common.sh"; for p in pubnode pubnode-load; do release_build "$p"; done; }
BIN=${PUBNODE_BIN:-$SCRATCH/release/pubnode}
SUBS=${SUBS:-2000} MESSAGES=${MESSAGES:-3} LOOPS=${LOOPS:-2} TOP=${TOP:-12}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pubnode-shared.XXXXXX")
trap 'perf probe -q -d "probe_*:swift_retain*" 2>/dev/null || true; rm -rf "$WORK"' EXIT
perf probe -q -d 'probe_*:swift_retain*' 2>/dev/null || true
perf probe -q -x "$BIN" 'swift_retain obj=%di:x64' >/dev/null
event=$(perf probe -l 2>/dev/null | awk '/swift_retain/ { print $1; exit }')
[[ -n "$event" ]] || { echo "bench-shared-retains: no uprobe on swift_retain in $BIN" >&2; exit 1; }
SERVER=pubnode SUBS=$SUBS MESSAGES=$MESSAGES LOAD_THREADS=2 PERF_DATA=$WORK/retains.perf PERF_EVENT=$event \
    PUBNODE_ARGS="--event-loop-threads $LOOPS" PUBNODE_BIN=$BIN SCRATCH=$SCRATCH \
    bash "$ROOT/Scripts/bench-cost.sh" fanout --no-build
perf script -i "$WORK/retains.perf" -F tid,trace,ip,sym --max-stack 3 2>/dev/null >"$WORK/retains.txt"
python3 - "$WORK/retains.txt" "$((SUBS * MESSAGES))" "$TOP" <<'PY'
import collections, re, sys
path, deliveries, top = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
objects = collections.Counter()
threads = collections.defaultdict(collections.Counter)
callers = collections.defaultdict(collections.Counter)
current, chain = None, []

def flush():
    if current:
        thread, obj = current
        objects[obj] += 1
        threads[obj][thread] += 1
        callers[obj][chain[1] if len(chain) > 1 else "?"] += 1

for line in open(path, errors="replace"):
    if not line.strip():
        flush(); current, chain = None, []
    elif line[0] != "\t" and "obj=" in line:
        found = re.search(r"obj=(0x[0-9a-f]+)", line)
        current, chain = (line.split()[0], found.group(1) if found else "?"), []
    else:
        parts = line.split(None, 1)
        if len(parts) > 1:
            chain.append(re.sub(r"^\$s", "", parts[1].strip())[:80])
flush()

def shared(obj, count):
    # Nil and values with the top bit set (tagged or immortal: swift_retain writes nothing) are
    # left out; "shared": a fifth or more of its retains from each of at least two threads.
    value = int(obj, 16) if obj.startswith("0x") else 0
    if value == 0 or value >= 1 << 63:
        return False
    return sum(1 for c in threads[obj].values() if c >= count / 5) >= 2

# Objects of the whole node (a channel's state, a keyset's counters) are retained on most
# deliveries; a connection's objects (its poll, handed from the publishing loop to its own) a few
# times each. Both kinds are counted, apart.
hot = deliveries / 10
listed = [(o, n) for o, n in objects.most_common() if shared(o, n) and n >= hot]
crossing = sum(n for o, n in objects.items() if shared(o, n) and n < hot)
print(f"retains a delivery: {sum(objects.values()) / deliveries:.1f}; of objects several loops retain, "
      f"shared by many connections: {sum(n for _, n in listed) / deliveries:.2f}, "
      f"a connection's own: {crossing / deliveries:.2f}")
for obj, count in listed[:top]:
    where = "; ".join(f"{name} ({n / deliveries:.2f})" for name, n in callers[obj].most_common(3))
    print(f"  {count / deliveries:5.2f}  {where}")
PY
