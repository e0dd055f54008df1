//! Builds the C++ shim (shim/mtpc_shim.cpp) against LLVM 16: the few
//! operations the LLVM C API does not offer.
use std::process::Command;

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
    build.cpp(true).file("shim/mtpc_shim.cpp").warnings(false);
    for flag in llvm_config("--cxxflags").split_whitespace() {
        // Debian's flags carry -fno-exceptions and -std=c++17; keep them all.
        build.flag(flag);
    }
    build.compile("mtpc_shim");
    println!("cargo:rerun-if-changed=shim/mtpc_shim.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_160_PREFIX");
}
