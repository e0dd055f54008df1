; RUN: env MTPC_LOG=debug MTPC_THREADS=2 %opt-mtpc -passes='mtpc-parallel<O2;partitions=2>' %s -o /dev/null 2>&1 | FileCheck --check-prefix=WHOLE %s
; RUN: env MTPC_LOG=debug MTPC_THREADS=2 %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' %s -o /dev/null 2>&1 | FileCheck --check-prefix=SPLIT %s

; mtpc's worker threads start with the first partition job, not when the
; pass first runs: a compile mtpc leaves whole stays single-threaded, as
; stock's (glibc's malloc, which the host calls millions of times, takes a
; cheaper path in a process of one thread). The debug line is written where
; the workers start.
; Fails if: worker.rs starts the workers when the pool is made (pool()).
; WHOLE-NOT: started {{[0-9]+}} worker threads
; WHOLE: planned 1 partitions
; WHOLE-NOT: started {{[0-9]+}} worker threads
; SPLIT: planned 2 partitions
; SPLIT: started 2 worker threads
target triple = "x86_64-pc-linux-gnu"

define i32 @only(i32 %x) {
  %a = add i32 %x, 0
  ret i32 %a
}

define i32 @other(i32 %x) {
  %a = mul i32 %x, %x
  %b = add i32 %a, 7
  %c = xor i32 %b, 3
  ret i32 %c
}
