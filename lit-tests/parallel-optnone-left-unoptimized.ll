; RUN: %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o - | FileCheck %s

; A partition's pipeline skips optnone functions as the host's would: the
; optnone function keeps its stack slot (no SROA), the same body without
; optnone works in registers only.
; Fails if: shim/host_pipeline.cpp mtpc_environment_build_kit() no longer registers the partition's OptNone instrumentation.
; CHECK-LABEL: module asm "kept:"
; CHECK: module asm "{{.*}}-4(%rsp)"
; CHECK: module asm "{{.*}}retq"
; CHECK-LABEL: module asm "optimized:"
; CHECK-NOT: (%rsp)
; CHECK: module asm "{{.*}}retq"

target triple = "x86_64-pc-linux-gnu"

define i32 @kept(i32 %x) noinline optnone {
  %slot = alloca i32
  store i32 %x, ptr %slot
  %v = load i32, ptr %slot
  %r = add i32 %v, 1
  ret i32 %r
}

define i32 @optimized(i32 %x) noinline {
  %slot = alloca i32
  store i32 %x, ptr %slot
  %v = load i32, ptr %slot
  %r = add i32 %v, 1
  ret i32 %r
}
