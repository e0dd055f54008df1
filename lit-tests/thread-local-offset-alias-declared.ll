; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: opt -passes=verify %t.0.bc -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; llvm.threadlocal.address takes a thread-local global. A partition that
; reaches a thread-local alias with an offset through it, and does not
; define the alias, declares the alias: resolved to its aliasee expression,
; the call would take a getelementptr, which LLVM 22's verifier rejects
; (LLVM 16's lets it pass).
; Fails if: GlobalFacts::resolves_to_aliasee resolves thread-local aliases
; (partition 0 would call it on a getelementptr of @tls).
; P0: @second = external thread_local global i64
; P0: call ptr @llvm.threadlocal.address.p0(ptr @second)
; P1: @second = thread_local alias i64, getelementptr (i8, ptr @tls.mtpc.{{[0-9a-f]+}}, i64 8)

@tls = internal thread_local global [2 x i64] [i64 3, i64 4], align 8
@second = thread_local alias i64, getelementptr (i8, ptr @tls, i64 8)

define i64 @owner() {
  %p = call ptr @llvm.threadlocal.address.p0(ptr @tls)
  %v = load i64, ptr %p
  %q = call ptr @llvm.threadlocal.address.p0(ptr @second)
  %w = load i64, ptr %q
  %s = add i64 %v, %w
  ret i64 %s
}

define i64 @reader() {
  %q = call ptr @llvm.threadlocal.address.p0(ptr @second)
  %w = load i64, ptr %q
  %x = mul i64 %w, 3
  ret i64 %x
}

declare ptr @llvm.threadlocal.address.p0(ptr)
