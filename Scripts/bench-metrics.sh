#!/usr/bin/env bash
# The cost of metrics: publish throughput and fan-out p99 on a node started with
# `--metrics false` and on one with metrics on, scraped every second (as a busy Prometheus
# would), side by side in one run (Scripts/bench-ab.sh; results in Docs/performance.md, "Metrics").
#
# Usage: Scripts/bench-metrics.sh [--no-build]; the environment of bench-ab.sh applies.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
A_NAME="metrics off" A_ARGS="--metrics false" B_NAME="metrics on (scraped every second)" B_ARGS="" SCRAPE_B=1 \
    exec bash "$ROOT/Scripts/bench-ab.sh" "$@"
