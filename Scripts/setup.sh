#!/usr/bin/env bash
# Installs what a fresh Debian machine needs to build and test PubNode (idempotent).
# Swift itself is expected at /opt/swift or on PATH.
set -euo pipefail
need=()
# chromium and its driver run the web console's browser tests (Tests/Browser); redis-server runs
# the Redis client's tests and the cluster suite (each starts its own server on loopback); nginx
# runs Deploy/nginx.conf in front of local nodes in the deployment tests (Tests/Interop/test_deploy.py);
# postgresql gives the PostgreSQL history tests their throwaway clusters (initdb in a temporary
# directory, on loopback).
for pkg in zlib1g-dev libsqlite3-dev libcurl4-openssl-dev chromium chromium-driver redis-server nginx postgresql; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then need+=(python3-venv); fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "installing: ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "please install: ${need[*]} (apt-get install)"; exit 1
  fi
fi
command -v swift >/dev/null || { echo "swift not found on PATH"; exit 1; }
