; RUN: env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=INFO %s < %t.err
; RUN: sed 's/^define internal void @report(/define void @report(/' %s | env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S -o - 2>&1 | FileCheck --check-prefix=NAMED %s

; A module that defines no external symbol (only local functions, run by a
; constructor) gives a promoted local a name (@bump.mtpc.TAG, strong and
; hidden) that another object compiled from the same source would define
; too: both linked into one program, the link would fail. So such a plan is
; not carried out: the module is compiled whole, with the reason. With an
; external definition (@report made external), the tag names this object
; alone (two objects defining report never link together) and it is split.
; Fails if: parallel.rs no longer asks decline::plan_reason.
; INFO: mtpc: info: {{.*}}it defines no external symbol, so the name of the local bump {{.*}}mtpc leaves it to the host, whole
; CHECK-NOT: module asm
; CHECK: define internal void @init(
; NAMED-NOT: leaves it to the host
; NAMED: module asm
target triple = "x86_64-pc-linux-gnu"

@counter = internal global i32 0
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @init, ptr null }]

define internal void @bump(i32 %k) noinline {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %c = load i32, ptr @counter
  %x = xor i32 %i, %k
  %c1 = add i32 %c, %x
  store i32 %c1, ptr @counter
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %k
  br i1 %more, label %loop, label %exit
exit:
  ret void
}

define internal void @report() noinline {
  call void @bump(i32 3)
  %c = load i32, ptr @counter
  call void @sink(i32 %c)
  ret void
}

define internal void @init() {
  call void @bump(i32 5)
  call void @report()
  ret void
}

declare void @sink(i32)
