//! The check of a text with LLVM's MC layer (`HostSettings::check_asm`),
//! which decides whether the merged text may go to the host.

use std::sync::mpsc;
use std::time::Duration;

use mtpc_passes::ir::host_pipeline::{HostSettings, ObjectFormat};

fn x86_64() -> HostSettings {
    HostSettings::for_triple("x86_64-pc-linux-gnu").expect("LLVM 16 has the x86 target")
}

#[test]
fn a_valid_text_passes() {
    let text = b"\t.text\n\t.globl\tf\nf:\n\tleal\t1(%rdi), %eax\n\tretq\n";
    assert_eq!(x86_64().check_asm(text), Ok(()));
}

#[test]
fn errors_and_warnings_fail_with_what_the_assembler_said() {
    let e = x86_64().check_asm(b"\tnop\n\tnot_an_instruction %eax\n").unwrap_err();
    // One line, for the one warning the fallback prints.
    assert_eq!(e, "line 2:2: error: invalid instruction mnemonic 'not_an_instruction'");
    // The merge's bug that led to this check: a .loc naming a file the
    // table does not give.
    let e = x86_64().check_asm(b"\t.file\t0 \"/d\" \"s.c\"\n\t.text\nf:\n\t.loc\t5 1 0\n\tretq\n").unwrap_err();
    assert!(e.contains("unassigned file number"), "{e}");
    let w = x86_64().check_asm(b"\t.file\t0 \"/d\" \"s.c\" md5 0x00112233445566778899aabbccddeeff\n\t.file\t1 \"/d\" \"h.h\"\n").unwrap_err();
    assert!(w.contains("warning"), "{w}");
    // An undefined private label is found by writing the object, not by parsing.
    let e = x86_64().check_asm(b"\t.text\nf:\n\tjmp\t.Lnowhere\n").unwrap_err();
    assert!(e.contains(".Lnowhere"), "{e}");
}

/// A text with errors is never laid out: the layout of this one (a second
/// definition of `f`, and a `.uleb128` across sections) ended the process
/// with a fatal error before the check stopped at the first error.
#[test]
fn a_text_with_errors_is_not_laid_out() {
    let text = b"\t.text\nf:\nf:\n.Lx:\n\tnop\n\t.section .foo,\"a\",@progbits\n\t.uleb128 .Lx-.Ly\n.Ly:\n";
    let e = x86_64().check_asm(text).unwrap_err();
    assert!(e.contains("redefined") || e.contains("already defined"), "{e}");
}

/// The text is read only up to its end: LLVM's lexer looks at the byte
/// after a buffer, and found the statement separator `;` there forever when
/// the text was not NUL-terminated (a hang seen in lld, now and then).
#[test]
fn what_follows_the_text_in_memory_is_never_read() {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buffer = b"\t.text\nf:\n\tretq\n".to_vec();
        let end = buffer.len();
        buffer.extend_from_slice(b";;;;;;;;");
        let _ = done.send(x86_64().check_asm(&buffer[..end]));
    });
    let result = finished.recv_timeout(Duration::from_secs(30)).expect("the check of a 3-line text must end");
    assert_eq!(result, Ok(()));
}

/// Two parts of one C++ file, each compiled by clang with its own `PART`
/// defined (see fixtures/cxx_partition.cpp): texts as the code generator
/// prints a partition, each alone in its object.
fn cxx_partitions() -> [&'static [u8]; 2] {
    [include_bytes!("fixtures/cxx_partition_a.s"), include_bytes!("fixtures/cxx_partition_b.s")]
}

#[test]
fn two_parts_of_a_cxx_file_merged_assemble_cleanly() {
    let parts = cxx_partitions();
    for part in parts {
        assert_eq!(x86_64().check_asm(part), Ok(()));
    }
    // Concatenated, they clash: private labels, the exception table, the
    // static function and counter are defined twice, the group is repeated.
    let concatenated = [parts[0], parts[1]].concat();
    let e = x86_64().check_asm(&concatenated).unwrap_err();
    assert!(e.contains("already defined"), "{e}");
    let merged = mtpc_passes::asm_merge::merge_bytes(&parts, Default::default()).expect("the parts merge");
    assert_eq!(x86_64().check_asm(&merged.text), Ok(()));
    // As the pass checks it: the table with each segment, on its own.
    for k in 0..2 {
        assert_eq!(x86_64().check_asm(&merged.segment_with_table(k)), Ok(()), "segment {k}");
    }
    let text = String::from_utf8_lossy(&merged.text);
    assert_eq!(text.matches("__llvm_retpoline_r11:").count(), 1, "the COMDAT copy is kept once");
    assert!(text.contains("\tmovl\t$.Lmtpc1..str, %ecx"), "part 1's immediates name its own strings");
    // Each part keeps its own static counter, though part 1's common
    // follows its dropped copy of the group.
    assert!(text.contains("\t.comm\t_ZL7counter.mtpc0,4,4") && text.contains("\t.comm\t_ZL7counter.mtpc1,4,4"), "{text}");
    assert!(text.contains("_ZL7counter.mtpc1(%rip)"), "part 1 counts in its own counter");
}

/// A repeated COMDAT group is kept from the first part; if a later part's
/// dropped copy holds a label something else of that part refers to (its
/// debug information describing its own copy of an inline function), the
/// merge refuses, rather than give the assembler a text whose layout fails
/// (LLVM 16 ends the process on a non-absolute .uleb128).
#[test]
fn a_dropped_copy_still_referred_to_is_refused() {
    let [a, b] = cxx_partitions().map(|p| String::from_utf8(p.to_vec()).expect("ASCII"));
    // Part 1's address table gets the start of its copy of the thunk.
    assert!(b.contains("__llvm_retpoline_r11:") && b.contains(".Lfunc_begin2:"));
    let b = b.replacen(".Laddr_table_base0:\n", ".Laddr_table_base0:\n\t.quad\t.Lfunc_begin2\n", 1);
    let e = mtpc_passes::asm_merge::merge(&[a, b]).unwrap_err();
    assert!(e.0.contains("part 1: .Lfunc_begin2 is in a copy dropped"), "{e}");
}

/// The same assembly into an object kept in memory (what mtpc writes where
/// clang 22 lets it): the pieces are one text, and the object an ELF
/// relocatable file defining what the text defines; a text with an error
/// gives no object.
#[test]
fn pieces_assemble_into_one_object() {
    let head: &[u8] = b"\t.text\n\t.file\t\"m.c\"\n";
    let body: &[u8] = b"\t.globl\tf\n\t.type\tf,@function\nf:\n\tleal\t1(%rdi), %eax\n\tretq\n";
    let tail: &[u8] = b"\t.section\t\".note.GNU-stack\",\"\",@progbits\n";
    let object = x86_64().assemble_object(&[head, body, tail], ObjectFormat::AsHost).expect("a valid text assembles");
    assert_eq!(&object[..4], b"\x7fELF");
    assert_eq!(object[16], 1, "ET_REL: a relocatable object");
    let contains = |needle: &[u8]| object.windows(needle.len()).any(|w| w == needle);
    assert!(contains(b"\0f\0") && contains(b"m.c\0") && contains(b".note.GNU-stack\0"));
    let e = x86_64().assemble_object(&[head, b"\tnot_an_instruction\n", tail], ObjectFormat::AsHost).err().expect("an error gives no object");
    assert!(e.contains("line 3:2: error: invalid instruction mnemonic"), "{e}");
}
