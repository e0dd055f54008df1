; RUN: rm -rf %t && mkdir -p %t/a %t/b %t/c
; RUN: cp %s %t/a/x.ll
; RUN: sed -e 's/^; ORDER: //' %s > %t/b/x.ll
; RUN: sed -e 's/mul i64 %%a, 5/mul i64 %%a, 7/' %s > %t/c/x.ll
; RUN: cd %t/a && env MTPC_CODE_GENERATION_ONLY=1 MTPC_MIN_SIZE=0 MTPC_PARTITIONS=2 clang -O2 -c x.ll -o x.o -fpass-plugin=%mtpc
; RUN: cd %t/b && env MTPC_CODE_GENERATION_ONLY=1 MTPC_MIN_SIZE=0 MTPC_PARTITIONS=2 clang -O2 -c x.ll -o x.o -fpass-plugin=%mtpc
; RUN: cd %t/c && env MTPC_CODE_GENERATION_ONLY=1 MTPC_MIN_SIZE=0 MTPC_PARTITIONS=2 clang -O2 -c x.ll -o x.o -fpass-plugin=%mtpc
; RUN: cmp %t/a/x.o %t/b/x.o
; RUN: llvm-nm %t/a/x.o %t/c/x.o | FileCheck %s

; Split for code generation only, a module is read by its partitions from
; bitcode that keeps the order of each value's uses, which a compile's
; passes may leave otherwise from one run to the next (raudio's, with
; clang 16 -O2: one value's uses in another order each run). The digest
; that names promoted locals leaves that order out: the same module with
; @counter's uses in another order (b) gives the same object, byte for
; byte; one constant changed (c) gives other names. (The thread-local
; @counter, which both partitions use, keeps its promoted name.)
; Fails if: Bitcode::digest hashes the use-list blocks, or the offsets
; they move (VSTOFFSET, FNENTRY), or hashes too little to tell c from a.
; CHECK: a/x.o:
; CHECK: B counter.mtpc.[[HASH:[0-9a-f]+]]
; CHECK: c/x.o:
; CHECK-NOT: counter.mtpc.[[HASH]]
; CHECK: B counter.mtpc.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@counter = internal thread_local global i64 0, align 8

define i64 @f(i64 %x) noinline {
  %c = load i64, ptr @counter, align 8
  %a = add i64 %c, %x
  %b = mul i64 %a, 3
  %d = xor i64 %b, %x
  %e = mul i64 %d, %a
  store i64 %e, ptr @counter, align 8
  ret i64 %e
}

define i64 @g(i64 %x) noinline {
  %c = load i64, ptr @counter, align 8
  %a = sub i64 %c, %x
  %b = mul i64 %a, 5
  %d = xor i64 %b, %x
  %e = mul i64 %d, %a
  store i64 %e, ptr @counter, align 8
  ret i64 %e
}

; ORDER: uselistorder ptr @counter, { 3, 2, 1, 0 }
