//! The assembly merge on real programs: each program (with `-g`) is split
//! by the plugin, every partition goes through `opt-16 -O2` and
//! `llc-16 -filetype=asm`, the texts are merged by `asm_merge::merge` and
//! assembled by `llvm-mc-16` into ONE object. That object, linked, must
//! print what the stock build prints; `llvm-dwarfdump-16 --verify` must find
//! no error in it; and gdb must stop in each named function at the same file and
//! line as in the stock build.
//!
//! Needs the plugin: run `cargo build --release` first (scripts/test.sh does).

use std::path::{Path, PathBuf};
use std::process::Command;

use mtpc_passes::asm_merge;

const BIN: &str = "/usr/lib/llvm-16/bin";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a command that must succeed and print nothing on stderr.
fn run_silent(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success() && out.stderr.is_empty(), "{cmd:?}:\n{}", String::from_utf8_lossy(&out.stderr));
}

fn tool(name: &str) -> Command {
    Command::new(format!("{BIN}/{name}"))
}

/// `file:line` where the program first stops at a breakpoint on `function`.
fn stop_location(exe: &Path, function: &str) -> String {
    let out = run(Command::new("gdb")
        .args(["-batch", "-nx", "-ex"])
        .arg(format!("break {function}"))
        .args(["-ex", "run", "-ex", "frame"])
        .arg(exe));
    // "#0  work_b (n=300) at /path/constructs.c:145"
    let frame = out.lines().find(|l| l.starts_with("#0")).unwrap_or_else(|| panic!("gdb did not stop in {function}:\n{out}"));
    let at = frame.rfind(" at ").unwrap_or_else(|| panic!("gdb has no line for {function}: {frame}"));
    frame[at + 4..].to_string()
}

struct Program {
    /// The module's source: a path, or a name under tests/programs.
    source: String,
    /// Compiled normally and linked with it.
    extra: Vec<String>,
    args: &'static [&'static str],
    driver: &'static str,
    flags: Vec<String>,
    libs: &'static [&'static str],
    /// Functions whose breakpoints are compared.
    functions: &'static [&'static str],
}

fn check(p: &Program, partitions: u32) {
    let plugin = repo().join("target/release/libmtpc.so");
    assert!(plugin.exists(), "{} is missing: run cargo build --release first", plugin.display());
    let src = repo().join("tests/programs").join(&p.source);
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    let work = std::env::temp_dir().join(format!("mtpc-merge-{}-{name}-{partitions}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let w = |name: &str| work.join(name);

    // Stock build.
    run(tool(p.driver).args(["-O2", "-g"]).args(&p.flags).args(&p.extra).arg(&src).arg("-o").arg(w("stock")).args(p.libs));
    let expected = run(Command::new(w("stock")).args(p.args));

    // Split, compile each partition to assembly, merge, assemble once.
    run(tool(p.driver)
        .args(["-O2", "-g", "-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c"])
        .args(&p.flags)
        .arg(&src)
        .arg("-o")
        .arg(w("whole.bc")));
    run(tool("opt")
        .arg(format!("-load-pass-plugin={}", plugin.display()))
        .arg(format!("-passes=mtpc-split<partitions={partitions};min-size=0;out={}>", w("p").display()))
        .arg(w("whole.bc"))
        .args(["-o", "/dev/null"]));
    let mut texts = Vec::new();
    for k in 0.. {
        let bc = w(&format!("p.{k}.bc"));
        if !bc.exists() {
            break;
        }
        run(tool("opt").arg("-O2").arg(&bc).arg("-o").arg(w(&format!("p.{k}.opt.bc"))));
        run(tool("llc")
            .args(["-O2", "-relocation-model=pic", "-filetype=asm"])
            .arg(w(&format!("p.{k}.opt.bc")))
            .arg("-o")
            .arg(w(&format!("p.{k}.s"))));
        texts.push(std::fs::read(w(&format!("p.{k}.s"))).unwrap());
    }
    assert!(texts.len() >= 2, "{}: the split made {} partitions", p.source, texts.len());
    let merged = asm_merge::merge_bytes(&texts).unwrap_or_else(|e| panic!("{}: {e}", p.source));
    std::fs::write(w("merged.s"), &merged).unwrap();
    // The host assembles the merged text: it must not even warn.
    run_silent(tool("llvm-mc").args(["-filetype=obj", "-triple=x86_64-pc-linux-gnu"]).arg(w("merged.s")).arg("-o").arg(w("merged.o")));
    run(tool(p.driver).args(["-O2", "-g"]).args(&p.flags).args(&p.extra).arg(w("merged.o")).arg("-o").arg(w("merged")).args(p.libs));

    assert_eq!(run(Command::new(w("merged")).args(p.args)), expected, "{}: output differs from the stock build", p.source);
    let verify = run(tool("llvm-dwarfdump").arg("--verify").arg(w("merged.o")));
    assert!(verify.contains("No errors."), "{}: llvm-dwarfdump --verify:\n{verify}", p.source);
    for f in p.functions {
        assert_eq!(
            stop_location(&w("merged"), f),
            stop_location(&w("stock"), f),
            "{}: gdb stops in {f} elsewhere than in the stock build",
            p.source
        );
    }
    let _ = std::fs::remove_dir_all(&work);
}

#[test]
fn c_program_merges_into_one_object() {
    let p = Program {
        source: "constructs.c".into(),
        extra: vec![],
        args: &[],
        driver: "clang",
        flags: vec!["-fcommon".into()],
        libs: &["-lpthread"],
        functions: &["work_a", "work_b", "work_c", "impl_sum", "main"],
    };
    for n in [2, 8] {
        check(&p, n);
    }
}

#[test]
fn cpp_program_merges_into_one_object() {
    let p = Program {
        source: "constructs.cpp".into(),
        extra: vec![],
        args: &[],
        driver: "clang++",
        flags: vec![],
        libs: &[],
        functions: &["parse_number", "total_area", "Rect::area", "main"],
    };
    for n in [2, 8] {
        check(&p, n);
    }
}

#[test]
fn sqlite3_merges_into_one_object() {
    let fetch = repo().join("tests/fetch-crate-source.sh");
    let dir = run(Command::new(fetch).args(["libsqlite3-sys", "0.30.1"]));
    let sqlite = PathBuf::from(dir.trim()).join("sqlite3");
    let p = Program {
        source: sqlite.join("sqlite3.c").display().to_string(),
        extra: vec![repo().join("tests/programs/sqlite_workload.c").display().to_string()],
        args: &["500"],
        driver: "clang",
        flags: vec![format!("-I{}", sqlite.display()), "-DSQLITE_THREADSAFE=0".into(), "-DSQLITE_OMIT_LOAD_EXTENSION".into()],
        libs: &["-lm"],
        functions: &["sqlite3_exec", "sqlite3VdbeExec", "sqlite3_prepare_v2"],
    };
    check(&p, 4);
}
