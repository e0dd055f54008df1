//! Builds the C++ shim (shim/*.cpp, see shim/shim.h) against LLVM 16: the
//! operations the LLVM C API does not offer.
use std::process::Command;

const SHIM_FILES: &[&str] = &[
    "shim/ir_ops.cpp",
    "shim/host_pipeline.cpp",
    "shim/partition_compile.cpp",
    "shim/diagnostics.cpp",
    "shim/asm_check.cpp",
    "shim/debug_files.cpp",
    "shim/debug_info.cpp",
];
const SHIM_HEADERS: &[&str] = &["shim/shim.h", "shim/partition_kit.h", "shim/diagnostics.h", "shim/debug_files.h"];

fn llvm_config(arg: &str) -> String {
    let prefix = std::env::var("LLVM_SYS_160_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-16".into());
    let tool = format!("{prefix}/bin/llvm-config");
    let out = Command::new(&tool)
        .arg(arg)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool} ({e}); install llvm-16-dev or set LLVM_SYS_160_PREFIX"));
    String::from_utf8(out.stdout).expect("llvm-config output is UTF-8").trim().to_string()
}

fn main() {
    let mut build = cc::Build::new();
    // LLVM's own headers are not warning-clean under -Wextra.
    build.cpp(true).files(SHIM_FILES).warnings(false);
    for flag in llvm_config("--cxxflags").split_whitespace() {
        // Debian's flags carry -fno-exceptions and -std=c++17; keep them all.
        build.flag(flag);
    }
    build.compile("mtpc_shim");
    for file in SHIM_FILES.iter().chain(SHIM_HEADERS) {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed=LLVM_SYS_160_PREFIX");
}
