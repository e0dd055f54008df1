//! Link flags of libmtpc.so.
//!
//! `-z nodelete`: the hosts unload their plugins when they exit (LLVM's
//! DynamicLibrary handles are closed by a static destructor), while mtpc's
//! worker threads, started on first use, may still be starting up inside
//! the library; unmapping it under them crashes the exiting process. The
//! library stays loaded until the process ends, as a pass plugin does
//! anyway.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    // Every symbol resolved when the library is linked: a shim function
    // declared but not defined fails the build, not the host that loads it.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,defs");
}
