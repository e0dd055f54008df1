; RUN: env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=INFO %s < %t.err
; RUN: sed 's/@memcpy(/@copy_bytes(/' %s | env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S -o - 2>&1 | FileCheck --check-prefix=OTHER-NAME %s

; The program's own memcpy, a local function, takes in the whole module's
; object every call to memcpy: its explicit calls, and those the code
; generator makes for @llvm.memcpy (a structure's copy in @copy_struct).
; A partition without it would call the C library's memcpy, and one with it
; renamed (@memcpy.mtpc.TAG, here: two partitions use it) as well. So a
; module with a local named like a library function is compiled whole, with
; the reason, whatever the plan. Named otherwise (@copy_bytes), the same
; module is split: the local, promoted for the split, is local again under
; its own name in the merged text (no .globl, no .hidden).
; Fails if: decline::module_reason no longer declines a module with
; ModuleFacts::library_named_locals (the first RUN would print module asm
; and no reason).
; INFO: mtpc: info: {{.*}}it defines a local memcpy, named like a library function{{.*}}mtpc leaves it to the host, whole
; CHECK-NOT: module asm
; CHECK: define internal {{.*}}ptr @memcpy(
; OTHER-NAME-NOT: leaves it to the host
; OTHER-NAME-NOT: copy_bytes.mtpc.
; OTHER-NAME-NOT: {{globl|weak|hidden}}{{.*}}copy_bytes
; OTHER-NAME: module asm "copy_bytes:"
; OTHER-NAME-NOT: copy_bytes.mtpc.
; OTHER-NAME-NOT: {{globl|weak|hidden}}{{.*}}copy_bytes
target triple = "x86_64-pc-linux-gnu"

@copies = internal global i32 0

define internal ptr @memcpy(ptr %d, ptr %s, i64 %n) noinline {
entry:
  %c = load i32, ptr @copies
  %c1 = add i32 %c, 1
  store i32 %c1, ptr @copies
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %body ]
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %exit
body:
  %from = getelementptr i8, ptr %s, i64 %i
  %to = getelementptr i8, ptr %d, i64 %i
  %b = load i8, ptr %from
  store i8 %b, ptr %to
  %i1 = add i64 %i, 1
  br label %loop
exit:
  ret ptr %d
}

define void @copy_struct(ptr %to, ptr %from) noinline {
  call void @llvm.memcpy.p0.p0.i64(ptr %to, ptr %from, i64 256, i1 false)
  %r = call ptr @memcpy(ptr %to, ptr %from, i64 4)
  ret void
}

define void @copy_explicit(ptr %to, ptr %from, i64 %n) noinline {
  %r = call ptr @memcpy(ptr %to, ptr %from, i64 %n)
  %half = lshr i64 %n, 1
  %r2 = call ptr @memcpy(ptr %to, ptr %from, i64 %half)
  ret void
}

define i32 @copies_made() {
  %c = load i32, ptr @copies
  ret i32 %c
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
