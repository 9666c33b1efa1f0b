# Helpers shared by the benchmark scripts (sourced, not run).

# Builds PRODUCT for release in $SCRATCH as it is deployed (Scripts/build-release.sh: the Swift
# standard library and runtime linked in, the dynamic exclusivity checks compiled out). Linked
# dynamically, every runtime call (retain, release) goes through the dynamic linker's tables:
# about 1.3 % of a publish's profile (Docs/performance.md, fifteenth series); the exclusivity
# checks were 18 % of a delivery's instructions (twenty-first series). Every script builds the
# same way, so one scratch folder is never rebuilt from scratch by switching between them.
# (Run from anywhere: each script sets ROOT to the package.)
release_build() {
    bash "$ROOT/Scripts/build-release.sh" "$1" --scratch-path "$SCRATCH" >&2
}

# A free loopback TCP port.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The median of the numbers given as arguments.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# A field of the last JSON line pubnode-load wrote to FILE: result_field FILE NAME.
result_field() {
    python3 -c 'import json,sys; print(json.loads([l for l in open(sys.argv[1]) if l.startswith("{")][-1])[sys.argv[2]])' "$1" "$2"
}

# Flags that lift the per-address connection and parked-poll limits: a load generator opens
# thousands of connections from one address. Left unquoted where used.
PUBNODE_UNLIMITED="--client-connection-limit 0 --client-parked-limit 0"
