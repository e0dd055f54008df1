; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1

; Thread-local variables keep their thread-local mode in the partition
; that defines them and in the declarations of the others, including the
; declaration that replaces a weak thread-local alias (a new global mtpc
; creates, not the input's own).
; Fails if: shim/ir_ops.cpp mtpc_replace_with_declaration() creates the declaring variable NotThreadLocal.
; P0: @tls_counter = thread_local global i32 0
; P0: @tls_alias = weak thread_local(initialexec) alias i32, ptr @tls_counter
; P1: @tls_counter = external thread_local global i32
; P1: @tls_ie = thread_local(initialexec) global i64 5
; P1: @tls_alias = external thread_local(initialexec) global i32

@tls_counter = thread_local global i32 0, align 4
@tls_ie = thread_local(initialexec) global i64 5, align 8
@tls_alias = weak thread_local(initialexec) alias i32, ptr @tls_counter
define void @bump_a() {
  %v = load i32, ptr @tls_counter
  %w = add i32 %v, 1
  store i32 %w, ptr @tls_counter
  %x = add i32 %w, 1
  %y = add i32 %x, 1
  ret void
}
define i64 @read_b() {
  %v = load i32, ptr @tls_counter
  %w = load i64, ptr @tls_ie
  %z = zext i32 %v to i64
  %s = add i64 %z, %w
  %a = load i32, ptr @tls_alias
  %b = zext i32 %a to i64
  %t = add i64 %s, %b
  ret i64 %t
}
