; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;no-merge;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; A block address inside a constant expression (a label's offset, a
; relative label table) is a block address all the same: its users share
; the function's partition, and the body is never copied elsewhere.
; Fails if: RefWalker::walk (module_facts.rs) records an
; Operand::BlockAddress as a plain reference, or stops at
; Operand::Aggregate instead of walking its operands. (`no-merge` keeps
; three partitions: @interp, a computed-goto dispatch, weighs three times
; its instructions, and the others would merge within it.)
; P0: @relative = internal constant [2 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr blockaddress(@interp, %one)
; P0: define i32 @interp(
; P0: define i64 @label_of_two(
; P1-NOT: interp
; P2: declare i32 @interp(i32)
; P2-NOT: define available_externally

@relative = internal constant [2 x i32] [i32 trunc (i64 sub (i64 ptrtoint (ptr blockaddress(@interp, %one) to i64), i64 ptrtoint (ptr @relative to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr blockaddress(@interp, %two) to i64), i64 ptrtoint (ptr @relative to i64)) to i32)]
define i32 @interp(i32 %op) {
entry:
  %slot = getelementptr [2 x i32], ptr @relative, i32 0, i32 %op
  %offset = load i32, ptr %slot
  %wide = sext i32 %offset to i64
  %base = ptrtoint ptr @relative to i64
  %address = add i64 %base, %wide
  %target = inttoptr i64 %address to ptr
  indirectbr ptr %target, [label %one, label %two]
one:
  ret i32 1
two:
  ret i32 2
}
define i64 @label_of_two() {
  ret i64 ptrtoint (ptr blockaddress(@interp, %two) to i64)
}
define i32 @caller(i32 %x) {
  %r = call i32 @interp(i32 %x)
  %a = add i32 %r, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  ret i32 %d
}
define i32 @other(i32 %x) {
  %a = add i32 %x, 1
  %b = add i32 %a, 1
  %c = add i32 %b, 1
  %d = add i32 %c, 1
  %e = add i32 %d, 1
  %f = add i32 %e, 1
  %g = add i32 %f, 1
  ret i32 %g
}
