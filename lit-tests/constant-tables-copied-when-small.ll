; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; A partition that reads a small constant table gets its initializer
; (available_externally), so loads with constant indices still fold; a
; large table is only declared.
; Fails if: symbol_rules.rs COPY_CONSTANT_MAX_BYTES raised from 4096 to u64::MAX (or lowered to 0).
; P0: @small_table = constant [4 x i32]
; P0: @large_table = constant [8192 x i32]
; P0: define i32 @reader(
; P1: @small_table = available_externally constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]
; P1: @large_table = external constant [8192 x i32]
; P1: define i32 @owner(

@small_table = constant [4 x i32] [i32 1, i32 2, i32 3, i32 4]
@large_table = constant [8192 x i32] zeroinitializer
define i32 @reader(i32 %i) {
  %p = getelementptr [4 x i32], ptr @small_table, i32 0, i32 2
  %v = load i32, ptr %p
  %q = getelementptr [8192 x i32], ptr @large_table, i32 0, i32 %i
  %w = load i32, ptr %q
  %s = add i32 %v, %w
  %t = add i32 %s, 1
  %u = add i32 %t, 1
  %x = add i32 %u, 1
  ret i32 %x
}
define i32 @owner(i32 %i) {
  %p = getelementptr [4 x i32], ptr @small_table, i32 0, i32 %i
  %v = load i32, ptr %p
  %q = getelementptr [8192 x i32], ptr @large_table, i32 0, i32 %i
  %w = load i32, ptr %q
  %s = add i32 %v, %w
  ret i32 %s
}
