; RUN: not %opt-mtpc -passes='mtpc-parallel<O4>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=LEVEL
; RUN: not %opt-mtpc -passes='mtpc-parallel<threads=0>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=THREADS

; Bad mtpc-parallel parameters are rejected while the pipeline is parsed,
; with a message that names them and lists what is accepted.
; Fails if: options.rs parse_parallel_options() accepts threads=0 (parse_count's minimum 1 lowered to 0).
; LEVEL: error: mtpc-parallel: unknown parameter 'O4'; mtpc-parallel accepts O0..O3, Os, Oz, default, thinlto, fulllto, partitions=N, threads=T and min-size=M
; THREADS: error: mtpc-parallel: invalid value '0' for parameter 'threads': expected an integer >= 1

define void @f() {
  ret void
}
