; RUN: env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %s -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=TRAMPOLINE %s < %t.err
; RUN: sed -e 's/call void @llvm.init.trampoline(ptr %%tramp, ptr @nested, ptr %%env)/call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 0, ptr %%env)/' -e 's/^declare void @llvm.init.trampoline(ptr, ptr, ptr)/declare void @llvm.experimental.stackmap(i64, i32, ...)/' %s > %t.stackmap.ll
; RUN: env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %t.stackmap.ll -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=STACKMAP %s < %t.err
; RUN: sed -e 's/@llvm.init.trampoline(ptr %%tramp, ptr @nested, ptr %%env)/@use(ptr %%env)/' -e 's/noinline nounwind {/noinline nounwind "split-stack" {/' %s > %t.splitstack.ll
; RUN: env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %t.splitstack.ll -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=SPLITSTACK %s < %t.err
; RUN: sed -e 's/@llvm.init.trampoline(ptr %%tramp, ptr @nested, ptr %%env)/@use(ptr %%env)/' -e 's/noinline nounwind {/noinline nounwind gc "erlang" {/' %s > %t.gc.ll
; RUN: env MTPC_LOG=info %opt-mtpc -passes='mtpc-parallel<O2;partitions=2;min-size=0>' -S %t.gc.ll -o - 2>%t.err | FileCheck %s
; RUN: FileCheck --check-prefix=GC %s < %t.err

; What the code generator writes once per object from every function
; together cannot come from partitions that each see their own: a module
; with a trampoline (the object then asks for an executable stack: no
; .note.GNU-stack, which a partition without it would write), stack maps
; (one .llvm_stackmaps table), split-stack functions (the
; .note.GNU-no-split-stack marker) or a garbage collector's tables (Erlang's
; .note.gc) is compiled whole, with the reason, and
; stays IR (no module asm: nothing was split).
; Fails if: parallel.rs's sizing no longer asks decline::module_reason.
; TRAMPOLINE: mtpc: info: {{.*}}a trampoline (llvm.init.trampoline){{.*}}mtpc leaves it to the host, whole
; STACKMAP: mtpc: info: {{.*}}stack maps{{.*}}mtpc leaves it to the host, whole
; SPLITSTACK: mtpc: info: {{.*}}split-stack functions{{.*}}mtpc leaves it to the host, whole
; GC: mtpc: info: {{.*}}garbage collector strategy{{.*}}mtpc leaves it to the host, whole
; CHECK-NOT: module asm
; CHECK: define void @with_trampoline(
target triple = "x86_64-pc-linux-gnu"

declare void @llvm.init.trampoline(ptr, ptr, ptr)
declare void @use(ptr)
declare void @sink(i32)

define internal i32 @nested(ptr nest %env, i32 %x) {
  %v = load i32, ptr %env
  %r = add i32 %v, %x
  ret i32 %r
}

define void @with_trampoline(i32 %n) noinline nounwind {
  %env = alloca i32
  store i32 %n, ptr %env
  %tramp = alloca [32 x i8], align 16
  call void @llvm.init.trampoline(ptr %tramp, ptr @nested, ptr %env)
  call void @use(ptr %tramp)
  ret void
}

define void @plain(i32 %n) noinline {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %m = mul i32 %i, %n
  call void @sink(i32 %m)
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}
