; RUN: rm -rf %t && mkdir %t && touch %t/file
; RUN: not %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t/missing/p>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISSING
; RUN: not %opt-mtpc -passes='mtpc-split<partitions=2;min-size=0;out=%t/file/p>' %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTDIR
; RUN: ls %t | FileCheck %s --check-prefix=NOTHING

; An out= prefix whose directory cannot be written to is reported before
; any work, and nothing is written.
; Fails if: split.rs write_partitions() no longer calls check_output_dir().
; MISSING: LLVM ERROR: mtpc-split: cannot write partitions to '{{.*}}missing/p': directory '{{.*}}missing': No such file or directory
; NOTDIR: LLVM ERROR: mtpc-split: cannot write partitions to '{{.*}}file/p': '{{.*}}file' is not a directory
; NOTHING-NOT: p.
; NOTHING: file
; NOTHING-NOT: p.

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
