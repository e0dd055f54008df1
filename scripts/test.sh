#!/usr/bin/env bash
# Runs every test of mtpc: the Rust unit tests (planning, symbol rules,
# options), the lit/FileCheck tests of the passes in lit-tests/, and the
# differential tests on real programs in the real hosts (tests/e2e_split.py
# and tests/e2e_parallel.py, which fetch sqlite3 with cargo), lld's full LTO
# (tests/e2e_full_lto.py: devirtualization and CFI too), host fidelity
# (tests/e2e_fidelity.py: sanitizers, coverage, profiles, diagnostics,
# other plugins, output kinds, options and debug info as without mtpc), the CMake
# package and toolchain file (tests/e2e_cmake.py), the make jobserver
# (tests/e2e_make.py), clang's -ftime-trace (tests/e2e_time_trace.py) and
# distcc (tests/e2e_distcc.py), a race detector on the host's module
# (tests/e2e_race.py, helgrind), random modules and C programs split and
# compiled (tests/e2e_stress.py, its quick run; `--long` for thousands), and
# the benchmark's critical-path model (bench/model.py). Prints each suite's
# summary.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/lib/llvm-16/bin:$PATH
cargo build --release --locked
cargo test --release --locked
python3 bench/model.py
# lit's entry point through the same python3 that pip installed it for.
python3 -c 'import sys, lit.main; sys.exit(lit.main.main())' -sv lit-tests
python3 tests/e2e_split.py
python3 tests/e2e_parallel.py
python3 tests/e2e_full_lto.py
python3 tests/e2e_fidelity.py
python3 tests/e2e_cmake.py
python3 tests/e2e_make.py
python3 tests/e2e_time_trace.py
python3 tests/e2e_distcc.py
python3 tests/e2e_race.py
python3 tests/e2e_stress.py
