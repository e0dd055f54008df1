#!/usr/bin/env bash
# Prints the unpacked source directory of a crate from crates.io, fetching
# it with cargo into cargo's own cache if needed. Third-party C/C++ code for
# tests and benchmarks comes from such crates; it is never committed.
#   tests/fetch-crate-source.sh libsqlite3-sys 0.30.1
set -euo pipefail
name=$1 version=$2
cache=${MTPC_CORPUS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mtpc-corpus}
proj=$cache/fetch-$name-$version
mkdir -p "$proj/src"
cat > "$proj/Cargo.toml" <<TOML
[package]
name = "mtpc-corpus-fetch"
version = "0.0.0"
edition = "2021"
[dependencies]
$name = { version = "=$version", default-features = false }
[workspace]
TOML
: > "$proj/src/lib.rs"
cargo fetch --quiet --manifest-path "$proj/Cargo.toml" >&2
home=${CARGO_HOME:-$HOME/.cargo}
dir=$(ls -d "$home"/registry/src/*/"$name-$version" 2>/dev/null | head -n 1)
[ -n "$dir" ] || { echo "error: cargo fetched $name $version but its source is not under $home/registry/src" >&2; exit 1; }
echo "$dir"
