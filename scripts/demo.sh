#!/usr/bin/env bash
# The demo: compiles the sqlite3 amalgamation (fetched with cargo from the
# libsqlite3-sys crate, never committed) with stock clang-16 -O2 and with
# mtpc, shows the time of each and mtpc's one-line report, then runs the
# same SQL workload on both builds and checks that they print the same.
#   ./scripts/demo.sh            (after ./scripts/setup.sh and cargo build --release)
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=$PWD/target/release/libmtpc.so
[ -f "$plugin" ] || { echo "error: $plugin does not exist: run cargo build --release first" >&2; exit 1; }
sqlite=$(tests/fetch-crate-source.sh libsqlite3-sys 0.30.1)/sqlite3
work=$(mktemp -d /tmp/mtpc-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
flags=(-O2 -w -I"$sqlite" -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION)

seconds() { local start=$1; echo "$(( ($(date +%s%N) - start) / 1000000 ))" | sed -E 's/([0-9]{3})$/.\1/;s/^\./0./'; }

echo "== stock: clang-16 -O2 -c sqlite3.c"
start=$(date +%s%N)
clang-16 "${flags[@]}" -c "$sqlite/sqlite3.c" -o "$work/stock.o"
echo "   $(seconds "$start") s"

echo "== mtpc:  clang-16 -O2 -c sqlite3.c -fpass-plugin=libmtpc.so   (MTPC_LOG=info)"
start=$(date +%s%N)
MTPC_LOG=info clang-16 "${flags[@]}" -fpass-plugin="$plugin" -c "$sqlite/sqlite3.c" -o "$work/mtpc.o"
echo "   $(seconds "$start") s"

clang-16 -O2 -I"$sqlite" -c tests/programs/sqlite_workload.c -o "$work/workload.o"
for build in stock mtpc; do
  clang-16 "$work/$build.o" "$work/workload.o" -o "$work/$build" -lm
  "$work/$build" 20000 > "$work/$build.out"
done
if cmp -s "$work/stock.out" "$work/mtpc.out"; then
  echo "== the SQL workload prints the same with both builds: $(tail -n 1 "$work/mtpc.out")"
else
  echo "error: the mtpc build of sqlite3 prints something else than the stock build" >&2
  diff "$work/stock.out" "$work/mtpc.out" | head -n 20 >&2
  exit 1
fi
