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
# (tests/e2e_race.py, helgrind; and memcheck on the host's module after the
# merge), random modules and C programs split and
# compiled (tests/e2e_stress.py, its quick run), and the benchmark's
# critical-path model (bench/model.py). Prints each suite's summary, and
# each suite's time at the end.
#
# `scripts/test.sh --long` adds the slow checks, against LLVM 16: the
# parallel pipeline's tests on HarfBuzz, QuickJS and raylib's audio
# module (as long as the rest of that suite together, about 12 minutes) and
# the stress test's long run (thousands of modules, about 35 minutes);
# against the other majors,
# sqlite3 through opt/llc and lld's full LTO, on a busy machine and with
# its code generation split alone (about 7 minutes a major; run without
# --long too when LLVM 16 is not tested).
#
# Then, against LLVM 22 if it is installed (scripts/setup.sh installs it),
# or against the majors MTPC_LLVMS lists ("16 19 22"; LLVM 19 is built but
# not in CI, and has one known failure: see the README), the plugin
# built for it (cargo build-llvmN) runs the unit tests, the lit tests and the
# end-to-end tests of the split (our C and C++ programs), the parallel
# pipeline (sqlite3 and our C and C++ programs, ThinLTO among them), full
# LTO (our C and C++ programs), host fidelity and the CMake
# package (which picks the plugin of the compiler's major). Make, the time
# trace, distcc, the race detector and the stress test run against LLVM 16
# only.
set -euo pipefail
cd "$(dirname "$0")/.."

long=()
case "${1-}" in
  "") ;;
  --long) long=(--long) ;;
  *) echo "usage: scripts/test.sh [--long]" >&2; exit 2 ;;
esac

lit_tests() {
  # lit's entry point through the same python3 that pip installed it for.
  python3 -c 'import sys, lit.main; sys.exit(lit.main.main())' -sv lit-tests
}

# Runs one suite and records its wall time; the times are printed together
# at the end, so that a CI run that grows longer shows which suite grew.
timings=""
step() {
  local started=$SECONDS
  "$@"
  timings+="$(printf '%6d s  LLVM %s: %s' $((SECONDS - started)) "$major" "$*")"$'\n'
}

majors=${MTPC_LLVMS:-$(for m in 16 22; do if [ -x "/usr/lib/llvm-$m/bin/llvm-config" ]; then echo "$m"; fi; done)}
for major in $majors; do
  case $major in
    16|19|22) ;;
    *) echo "error: MTPC_LLVMS names LLVM $major; mtpc is built for LLVM 16, 19 and 22" >&2; exit 2 ;;
  esac
done

for major in $majors; do
  echo "=== LLVM $major"
  export MTPC_LLVM=$major
  if [ "$major" = 16 ]; then
    PATH=/usr/lib/llvm-16/bin:$PATH
    step cargo build --release --locked
    # The release profile checks arithmetic (Cargo.toml): an overflow fails
    # the unit tests, and in the hosts makes mtpc fall back.
    step cargo test --release --locked
    step python3 bench/model.py
    step lit_tests
    step python3 tests/e2e_split.py
    step python3 tests/e2e_parallel.py "${long[@]}"
    step python3 tests/e2e_full_lto.py
    step python3 tests/e2e_fidelity.py
    step python3 tests/e2e_cmake.py
    step python3 tests/e2e_make.py
    step python3 tests/e2e_time_trace.py
    step python3 tests/e2e_distcc.py
    step python3 tests/e2e_race.py
    step python3 tests/e2e_stress.py "${long[@]}"
  else
    # What LLVM 16's run covers and another major adds little to (about
    # 7 of its 19 minutes) runs with --long only, or when LLVM 16 is not
    # among the majors tested: sqlite3 through opt/llc and through lld's
    # full LTO (the small programs still go through both), sqlite3's
    # compiles on a busy machine (how mtpc reads the load does not depend
    # on the LLVM) and its split of the code generation alone (the small
    # programs still check that).
    skip_sqlite3=(--skip sqlite3)
    skip_checks=(--skip-check busy-machine --skip-check code-generation-split)
    if [ ${#long[@]} -gt 0 ] || ! grep -qw 16 <<<"$majors"; then skip_sqlite3=(); skip_checks=(); fi
    step cargo "build-llvm$major" --locked
    step cargo "test-llvm$major" --locked
    step lit_tests
    step python3 tests/e2e_split.py "${skip_sqlite3[@]}"
    step python3 tests/e2e_parallel.py "${skip_checks[@]}"
    step python3 tests/e2e_full_lto.py "${skip_sqlite3[@]}"
    step python3 tests/e2e_fidelity.py
    step python3 tests/e2e_cmake.py
  fi
done

echo "=== time per suite"
printf '%s' "$timings"
echo "$SECONDS s in all"
