; RUN: rm -f %t.*.bc
; RUN: %opt-mtpc -passes='mtpc-split<partitions=3;min-size=0;out=%t>' %s -o /dev/null
; RUN: llvm-dis %t.0.bc -o - | FileCheck %s --check-prefix=P0
; RUN: llvm-dis %t.1.bc -o - | FileCheck %s --check-prefix=P1
; RUN: llvm-dis %t.2.bc -o - | FileCheck %s --check-prefix=P2

; A constant external vtable is defined by its owner; partitions that store
; it get it as available_externally so that devirtualization still works.
; The partition that only calls through a loaded pointer needs neither.
; Fails if: symbol_rules.rs COPY_CONSTANT_MAX_BYTES lowered from 4096 to 0.
; P0: @_ZTV4Rect = constant
; P0: define void @make_a(
; P1-NOT: _ZTV4Rect
; P1: define i32 @call_b(
; P2: @_ZTV4Rect = available_externally constant
; P2: define void @make_b(

@_ZTV4Rect = constant { [3 x ptr] } { [3 x ptr] [ptr null, ptr null, ptr @_ZN4Rect4areaEv] }, align 8
define i32 @_ZN4Rect4areaEv(ptr %this) {
  ret i32 6
}
define void @make_a(ptr %p) {
  store ptr getelementptr inbounds ({ [3 x ptr] }, ptr @_ZTV4Rect, i32 0, i32 0, i32 2), ptr %p
  %a = add i32 1, 2
  %b = add i32 %a, 3
  %c = add i32 %b, 3
  ret void
}
define i32 @call_b(ptr %obj) {
  %vt = load ptr, ptr %obj
  %fp = load ptr, ptr %vt
  %r = call i32 %fp(ptr %obj)
  ret i32 %r
}
define void @make_b(ptr %p) {
  store ptr getelementptr inbounds ({ [3 x ptr] }, ptr @_ZTV4Rect, i32 0, i32 0, i32 2), ptr %p
  ret void
}
