#!/usr/bin/env bash
# Builds a product for release as it is deployed (Deploy/Dockerfile, Deploy/pubnode.service, the
# benchmarks): optimized, with the Swift standard library and runtime linked in, and with the
# dynamic exclusivity checks compiled out of every module, SwiftNIO's included.
#
# Why (Docs/architecture.md, "The release build"): a dynamic exclusivity check is a call into the
# runtime that records each access to a class's stored property, a global or an escaping closure's
# capture in a per-thread set. On the fan-out path they were 18 % of the instructions a delivery
# executes, more than half of them in SwiftNIO's own code (Docs/performance.md, twenty-first
# series). Debug builds, which every test, the interop and browser suites and the fuzzers run,
# keep them, as do the compile-time checks in every build.
#
# Usage: Scripts/build-release.sh PRODUCT [more `swift build` arguments, e.g. --scratch-path DIR]
# Environment: PUBNODE_EXCLUSIVITY [unchecked; checked keeps the dynamic checks, a build to run a
#   suspected violation under]. Builds in one scratch folder must all use the same setting: any
#   change of flags rebuilds every module.
set -euo pipefail

PRODUCT=${1:?usage: build-release.sh PRODUCT [swift build arguments]}
shift
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case "${PUBNODE_EXCLUSIVITY:-unchecked}" in
    unchecked) checks=(-Xswiftc -enforce-exclusivity=unchecked) ;;
    checked) checks=() ;;
    *) echo "PUBNODE_EXCLUSIVITY must be checked or unchecked" >&2; exit 2 ;;
esac
exec swift build --package-path "$ROOT" -c release --static-swift-stdlib "${checks[@]}" --product "$PRODUCT" "$@"
