//! Builds the C++ shim (shim/*.cpp, see shim/shim.h) against the LLVM major
//! the build is for (the Cargo feature llvm16, llvm19 or llvm22; see
//! src/ir/llvm_version.rs): the operations the LLVM C API does not offer.
use std::process::Command;

const SHIM_FILES: &[&str] = &[
    "shim/llvm_compat.cpp",
    "shim/ir_ops.cpp",
    "shim/host_pipeline.cpp",
    "shim/partition_compile.cpp",
    "shim/diagnostics.cpp",
    "shim/assemble.cpp",
    "shim/host_object.cpp",
    "shim/object_frame.cpp",
    "shim/debug_files.cpp",
    "shim/debug_info.cpp",
    "shim/debug_types.cpp",
];
const SHIM_HEADERS: &[&str] = &["shim/shim.h", "shim/llvm_compat.h", "shim/partition_kit.h", "shim/diagnostics.h", "shim/debug_files.h"];

/// The LLVM major the Cargo features pick, and the variable llvm-sys reads
/// its installation from (the same one is used here).
fn llvm_major() -> (u32, &'static str) {
    let picked: Vec<(u32, &str)> = [(16, "LLVM_SYS_160_PREFIX"), (19, "LLVM_SYS_191_PREFIX"), (22, "LLVM_SYS_221_PREFIX")]
        .into_iter()
        .filter(|(major, _)| std::env::var_os(format!("CARGO_FEATURE_LLVM{major}")).is_some())
        .collect();
    match picked[..] {
        [one] => one,
        // src/lib.rs says what to do.
        _ => (16, "LLVM_SYS_160_PREFIX"),
    }
}

fn llvm_config((major, prefix_variable): (u32, &str), arg: &str) -> String {
    let prefix = std::env::var(prefix_variable).unwrap_or_else(|_| format!("/usr/lib/llvm-{major}"));
    let tool = format!("{prefix}/bin/llvm-config");
    let out = Command::new(&tool).arg(arg).output().unwrap_or_else(|e| {
        panic!("cannot run {tool} ({e}); install llvm-{major}-dev or set {prefix_variable} to LLVM {major}'s prefix")
    });
    let text = String::from_utf8(out.stdout).expect("llvm-config output is UTF-8").trim().to_string();
    if arg == "--version" && !text.starts_with(&format!("{major}.")) {
        panic!("{tool} is LLVM {text}, not LLVM {major}; set {prefix_variable} to LLVM {major}'s prefix");
    }
    text
}

fn main() {
    let llvm = llvm_major();
    llvm_config(llvm, "--version");
    let mut build = cc::Build::new();
    // LLVM's own headers are not warning-clean under -Wextra.
    build.cpp(true).files(SHIM_FILES).warnings(false);
    for flag in llvm_config(llvm, "--cxxflags").split_whitespace() {
        // Debian's flags carry -fno-exceptions and -std=c++17; keep them all.
        build.flag(flag);
    }
    build.compile("mtpc_shim");
    for file in SHIM_FILES.iter().chain(SHIM_HEADERS) {
        println!("cargo:rerun-if-changed={file}");
    }
    println!("cargo:rerun-if-env-changed={}", llvm.1);
}
