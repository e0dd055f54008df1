; RUN: rm -rf %t && mkdir %t
; RUN: not %opt-mtpc -disable-verify -passes='mtpc-split<partitions=2;min-size=0;out=%t/p>' %s -o /dev/null 2>&1 | FileCheck %s
; RUN: ls -A %t | count 0

; A module that fails the IR verifier is refused with the verifier's
; message, and nothing is left in the output directory: the partitions are
; built while the verifier runs, but none is written before it has passed
; the input.
; Fails if: split.rs write_partitions() skips the input's verifier (m.verify() replaced by Ok); the ls line needs both the verdict wait and the cleanup of written files gone.
; CHECK: LLVM ERROR: mtpc-split: the input module fails the IR verifier
; CHECK: Instruction does not dominate all uses!

define i32 @broken(i32 %x) {
  %a = add i32 %b, 1
  %b = add i32 %a, 1
  ret i32 %a
}
define i32 @a(i32 %x) {
  %r = call i32 @b(i32 %x)
  %s = add i32 %r, 1
  %t = add i32 %s, 1
  ret i32 %t
}
define i32 @b(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
define i32 @c(i32 %x) {
  %y = add i32 %x, 2
  ret i32 %y
}
