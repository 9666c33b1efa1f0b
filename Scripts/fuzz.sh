#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers that read untrusted bytes (Fuzz/, see Docs/fuzzing.md).
#
#   Scripts/fuzz.sh [seconds-per-target] [--update-corpus] [target...]
#
# Builds the fuzz package once with libFuzzer and AddressSanitizer, then runs each target (all by
# default) for the given time (default 60 s) from its committed corpus Fuzz/corpus/<target>. New
# interesting inputs go to a temporary folder; with --update-corpus the committed corpus becomes
# its seeds plus a minimal set of old and new inputs covering the same edges. Prints a table and exits non-zero on any crash, naming the
# crash file. Environment: FUZZ_WORK (work folder, default a new temporary one), FUZZ_JOBS_NICE
# (nice level, default 10), FUZZ_RSS_MB (default 2048), FUZZ_TIMEOUT (seconds per input, default 10).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
update=0
targets=()
for arg in "$@"; do
  case "$arg" in
    --update-corpus) update=1 ;;
    ''|*[!0-9]*) targets+=("$arg") ;;
    *) seconds="$arg" ;;
  esac
done
all=(FuzzRequestTarget FuzzSignature FuzzJSON FuzzPresenceState FuzzKeysetSpec FuzzHookReply FuzzCBOR FuzzCBORJSON
     FuzzToken FuzzPattern FuzzRESP FuzzClusterRecord FuzzFilter FuzzHTTPRequest)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

dictionary() {
  case "$1" in
    FuzzRequestTarget|FuzzSignature) echo Fuzz/dictionaries/request.dict ;;
    FuzzJSON|FuzzPresenceState|FuzzKeysetSpec|FuzzHookReply|FuzzCBORJSON) echo Fuzz/dictionaries/json.dict ;;
    FuzzToken) echo Fuzz/dictionaries/token.dict ;;
    FuzzPattern) echo Fuzz/dictionaries/pattern.dict ;;
    FuzzFilter) echo Fuzz/dictionaries/filter.dict ;;
    FuzzHTTPRequest) echo Fuzz/dictionaries/http.dict ;;
  esac
}

# Rebuilds a committed corpus as the hand-written seeds plus the fewest inputs (old or new) that
# add edge coverage (-use_counters=0 ignores hit counts, which keeps the set small).
minimise() {
  local target="$1" corpus="$2" dir="$3" kept="$3/minimised"
  rm -rf "$kept" && mkdir -p "$kept"
  find "$corpus" -maxdepth 1 -type f -name 'seed-*' -exec cp {} "$kept/" \;
  nice -n "$nice_level" "$bin/$target" -merge=1 -use_counters=0 "$kept" "$corpus" "$dir/new" \
    -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -max_len=4096 >"$dir/merge.log" 2>&1
  find "$corpus" -maxdepth 1 -type f -delete
  cp "$kept"/* "$corpus/"
}

nice_level="${FUZZ_JOBS_NICE:-10}"
work="${FUZZ_WORK:-$(mktemp -d /tmp/pubnode-fuzz.XXXXXX)}"
mkdir -p "$work"
echo "== fuzz build (log: $work/build.log)"
start=$(date +%s)
if ! nice -n "$nice_level" swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address \
    >"$work/build.log" 2>&1; then
  grep -v "Cannot export local symbol" "$work/build.log" | tail -40
  echo "fuzz build failed"; exit 1
fi
bin="$(swift build --package-path Fuzz -c debug --show-bin-path)"
echo "   built in $(( $(date +%s) - start )) s"

# LeakSanitizer would report the Swift runtime's lazily allocated metadata; memory errors still stop a run.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# Swift's backtracer reads the crashed thread's stack from a helper thread, which ASan reports as a
# second, spurious error; libFuzzer's own stack trace is enough.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
rows=()
crashes=()
for target in "${targets[@]}"; do
  [ -x "$bin/$target" ] || { echo "no such target: $target"; exit 2; }
  dir="$work/$target"
  mkdir -p "$dir/new" "$dir/artifacts"
  corpus="Fuzz/corpus/$target"
  mkdir -p "$corpus"
  dict="$(dictionary "$target")"
  echo "== $target (${seconds} s)"
  status=0
  timeout $(( seconds + 300 )) nice -n "$nice_level" "$bin/$target" "$dir/new" "$corpus" \
    -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" -max_len=4096 \
    ${dict:+-dict="$dict"} -artifact_prefix="$dir/artifacts/" -print_final_stats=1 >"$dir/log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  cov=$(grep -oE ' cov: [0-9]+ ft: [0-9]+' "$dir/log" | tail -1 | awk '{print $2 "/" $4}')
  found=$(find "$dir/artifacts" -type f | head -1)
  fresh=$(find "$dir/new" -type f | wc -l)
  if [ "$status" -ne 0 ] || [ -n "$found" ]; then
    result="CRASH"
    crashes+=("$target: ${found:-exit $status, see $dir/log}")
    grep -E "property violated|Fatal error|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY" "$dir/log" | head -5 || true
  else
    result="ok"
    if [ "$update" = 1 ] && [ "$fresh" -gt 0 ]; then
      minimise "$target" "$corpus" "$dir"
      result="ok, corpus $(find "$corpus" -type f | wc -l) files"
    fi
  fi
  rows+=("$(printf '%-18s %12s %14s %8s  %s' "$target" "${runs:-?}" "${cov:-?}" "$fresh" "$result")")
done

echo
printf '%-18s %12s %14s %8s  %s\n' target runs "cov/features" "new" result
printf '%s\n' "${rows[@]}"
if [ ${#crashes[@]} -gt 0 ]; then
  echo "work folder (kept): $work"
  echo
  echo "crashes (reproduce with: $bin/<target> <file>):"
  printf '  %s\n' "${crashes[@]}"
  exit 1
fi
# Nothing to reproduce: a temporary work folder goes (one given with FUZZ_WORK stays).
if [ -z "${FUZZ_WORK:-}" ]; then rm -rf "$work"; else echo "work folder: $work"; fi
