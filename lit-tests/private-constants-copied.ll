; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; Private unnamed_addr constants without references (string literals) are
; copied into each partition that uses them: their address is not
; significant. A private variable whose address is significant is
; promoted instead.
; Fails if: symbol_rules.rs is_local_copyable() always false (string literals promoted, not copied).
; P0: @.str = private unnamed_addr constant [6 x i8] c"hello\00"
; P0: @[[C0:\.counter\.mtpc\.[0-9a-f]+]] = hidden global i32 0
; P1: @.str = private unnamed_addr constant [6 x i8] c"hello\00"
; P1: @.counter.mtpc.{{[0-9a-f]+}} = external hidden global i32

@.str = private unnamed_addr constant [6 x i8] c"hello\00", align 1
@.counter = private global i32 0
declare i32 @puts(ptr)
define void @greet_a() {
  %r = call i32 @puts(ptr @.str)
  %v = load i32, ptr @.counter
  %w = add i32 %v, 1
  store i32 %w, ptr @.counter
  %x = add i32 %w, 1
  ret void
}
define void @greet_b() {
  %r = call i32 @puts(ptr @.str)
  %v = load i32, ptr @.counter
  ret void
}
