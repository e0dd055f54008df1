//! A part's object, transcribed (`object_transcript`) and assembled again
//! with LLVM's MC layer, is the same object: the same bytes in the same
//! sections, the same symbols where they were, the same relocations (by
//! type, place, target and addend) and address-significance table; and the
//! parts' objects joined (`object_merge`) say what the merge of their texts
//! says. This is what clang (16, 19 and 22) is handed instead of the parts'
//! text. (The comparisons run against LLVM 16's MC layer only. LLVM 22's
//! keeps the label or local a `.reloc` names as the relocation's symbol,
//! and pads code between parts with other no-ops, which these comparisons
//! of symbols and bytes do not allow for; `tests/e2e_parallel.py` compares
//! clang 22's objects with relocations read through their sections.)
#![cfg(feature = "llvm16")]

use std::collections::{BTreeMap, HashMap};

use mtpc_passes::ir::host_pipeline::{HostSettings, ObjectFormat};
use mtpc_passes::ir::MemoryFile;
use mtpc_passes::object_merge::{self, PartDecisions, PartFacts};
use mtpc_passes::object_transcript::{check_across_parts, transcribe, Transcript};
use object::elf;
use object::read::elf::{FileHeader, Rela as _, SectionHeader as _, Sym as _};
use object::LittleEndian;

/// One function of each kind the code generator writes: a call to an
/// external function and to a local one, a string read by its address, a
/// jump table, thread-local data, a C++ inline function in its group, a
/// constructor of an explicit instantiation in a group no symbol names
/// (`C5`: the assembler makes its signature), an aligned object of no
/// size in a section of its own (`-fdata-sections`),
/// constants and zeroed data, a table too large to be written out in the
/// transcript (it is read from the file), the once-per-object directives.
const PART: &str = r#"	.text
	.globl	f
	.p2align	4, 0x90
	.type	f,@function
f:
	pushq	%rax
	leaq	.L.str.1(%rip), %rdi
	callq	puts@PLT
	callq	helper
	movq	tls@GOTTPOFF(%rip), %rax
	movl	%fs:(%rax), %eax
	movsd	.LCPI0_0(%rip), %xmm0
	popq	%rcx
	cmpl	$2, %edi
	ja	.LBB0_4
	movl	%edi, %eax
	jmpq	*.LJTI0_0(,%rax,8)
.LBB0_2:
	movl	$1, %eax
	retq
.LBB0_3:
	movl	$2, %eax
	retq
.LBB0_4:
	xorl	%eax, %eax
	retq
.Lfunc_end0:
	.size	f, .Lfunc_end0-f
	.section	.rodata,"a",@progbits
	.p2align	3
.LJTI0_0:
	.quad	.LBB0_2
	.quad	.LBB0_3
	.quad	.LBB0_4
	.section	.rodata.cst8,"aM",@progbits,8
	.p2align	3
.LCPI0_0:
	.quad	0x400921fb54442d18
	.text
	.p2align	4, 0x90
	.type	helper,@function
helper:
	jmp	_Z6inlinev
.Lfunc_end1:
	.size	helper, .Lfunc_end1-helper
	.section	.text._Z6inlinev,"axG",@progbits,_Z6inlinev,comdat
	.weak	_Z6inlinev
	.p2align	4, 0x90
	.type	_Z6inlinev,@function
_Z6inlinev:
	movl	counter(%rip), %eax
	retq
.Lfunc_end2:
	.size	_Z6inlinev, .Lfunc_end2-_Z6inlinev
	.section	.text._ZN1SIiEC2Ev,"axG",@progbits,_ZN1SIiEC5Ev,comdat
	.weak	_ZN1SIiEC2Ev
	.p2align	4, 0x90
	.type	_ZN1SIiEC2Ev,@function
_ZN1SIiEC2Ev:
	movl	$1, (%rdi)
	retq
.Lfunc_end3:
	.size	_ZN1SIiEC2Ev, .Lfunc_end3-_ZN1SIiEC2Ev
	.section	.rodata.str1.1,"aMS",@progbits,1
.L.str.0:
	.asciz	"hi"
	.type	.L.str.1,@object
.L.str.1:
	.asciz	"hello"
	.size	.L.str.1, 6
	.type	names,@object
	.data
	.globl	names
	.hidden	names
	.p2align	3
names:
	.quad	.L.str.1
	.quad	.L.str.0
	.quad	f+2
	.size	names, 24
	.type	table,@object
	.section	.data.rel.ro.table,"aw",@progbits
	.globl	table
	.p2align	4
table:
	.quad	f
	.fill	300, 4, 0x01020304
	.quad	names+8
	.size	table, 1216
	.type	counter,@object
	.local	counter
	.comm	counter,4,4
	.type	zeros,@object
	.bss
	.p2align	4
zeros:
	.zero	64
	.size	zeros, 64
	.type	m,@object
	.section	.bss.m,"aw",@nobits
	.globl	m
	.p2align	6
m:
	.size	m, 0
	.ident	"clang version 16.0.6"
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.addrsig_sym f
	.addrsig_sym names
	.addrsig_sym .L.str.1
"#;

type Header = elf::FileHeader64<LittleEndian>;

/// What an object says, by name: each section's type, flags, alignment
/// and bytes (the tables aside), each group's members, each symbol's
/// binding, type, visibility, place and size, each section's relocations,
/// the address-significant symbols.
#[derive(Debug, PartialEq, Eq)]
struct Said {
    sections: BTreeMap<String, (u32, u64, u64, Vec<u8>)>,
    groups: BTreeMap<String, Vec<String>>,
    symbols: BTreeMap<String, (u8, u8, u8, String, u64, u64)>,
    relocations: BTreeMap<String, Vec<(u64, u32, String, i64)>>,
    address_significant: Vec<String>,
}

fn said(data: &[u8]) -> Said {
    let header = Header::parse(data).unwrap();
    let endian = header.endian().unwrap();
    let sections = header.sections(endian, data).unwrap();
    let symbols = sections.symbols(endian, data, elf::SHT_SYMTAB).unwrap();
    let section_name = |index: usize| -> String {
        let header = sections.section(object::SectionIndex(index)).unwrap();
        String::from_utf8(sections.section_name(endian, header).unwrap().to_vec()).unwrap()
    };
    let symbol_name = |index: usize| -> String {
        let symbol = symbols.symbol(object::SymbolIndex(index)).unwrap();
        if symbol.st_type() == elf::STT_SECTION {
            return section_name(symbol.st_shndx(endian) as usize);
        }
        String::from_utf8(symbols.symbol_name(endian, symbol).unwrap().to_vec()).unwrap()
    };
    let mut out =
        Said { sections: BTreeMap::new(), groups: BTreeMap::new(), symbols: BTreeMap::new(), relocations: BTreeMap::new(), address_significant: Vec::new() };
    for (index, section) in sections.iter().enumerate().skip(1) {
        let name = section_name(index);
        match section.sh_type(endian) {
            elf::SHT_SYMTAB | elf::SHT_STRTAB => {}
            elf::SHT_GROUP => {
                let (flag, members) = section.group(endian, data).unwrap().unwrap();
                assert_eq!(flag, elf::GRP_COMDAT);
                let mut members: Vec<String> = members.iter().map(|m| section_name(m.get(endian) as usize)).collect();
                members.sort();
                out.groups.insert(symbol_name(section.sh_info(endian) as usize), members);
            }
            elf::SHT_RELA => {
                let (relas, _) = section.rela(endian, data).unwrap().unwrap();
                let list = relas
                    .iter()
                    .map(|r| (r.r_offset(endian), r.r_type(endian, false), symbol_name(r.r_sym(endian, false) as usize), r.r_addend(endian)))
                    .collect();
                out.relocations.insert(section_name(section.sh_info(endian) as usize), list);
            }
            0x6fff_4c03 => {
                // SHT_LLVM_ADDRSIG
                let mut bytes = section.data(endian, data).unwrap();
                while let Some((&b, rest)) = bytes.split_first() {
                    assert!(b < 0x80, "one-byte indexes in this test");
                    out.address_significant.push(symbol_name(b as usize));
                    bytes = rest;
                }
            }
            sh_type => {
                let bytes = if sh_type == elf::SHT_NOBITS { Vec::new() } else { section.data(endian, data).unwrap().to_vec() };
                // The group flag is the group's to say.
                let flags = section.sh_flags(endian) & !(elf::SHF_GROUP as u64);
                out.sections.insert(name, (sh_type, flags, section.sh_addralign(endian), bytes));
            }
        }
    }
    for index in 1..symbols.len() {
        let symbol = symbols.symbol(object::SymbolIndex(index)).unwrap();
        if matches!(symbol.st_type(), elf::STT_SECTION | elf::STT_FILE) {
            continue;
        }
        let shndx = symbol.st_shndx(endian);
        let place = if shndx == elf::SHN_UNDEF || shndx >= elf::SHN_LORESERVE { format!("{shndx:#x}") } else { section_name(shndx as usize) };
        out.symbols.insert(
            symbol_name(index),
            (symbol.st_bind(), symbol.st_type(), symbol.st_visibility(), place, symbol.st_value(endian), symbol.st_size(endian)),
        );
    }
    out
}

#[test]
fn a_transcribed_object_assembles_into_the_same_object() {
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").expect("LLVM has the x86 target");
    let object = host.assemble_object(&[PART.as_bytes()], ObjectFormat::AsHost).expect("the part assembles");
    let file = MemoryFile::with_bytes(&object).expect("a file in memory");
    let transcript = transcribe(&object, &file.path(), 0, &PartDecisions::default()).expect("the object is transcribed");
    // The transcript holds no instruction of the part's; the table alone
    // is read from the file, the other sections' bytes are written out:
    // the jump table and `names`, all addresses, as words naming their
    // targets, the code (7 relocations) and the table (2) with `.reloc`.
    assert!(!transcript.text.contains("callq") && !transcript.text.contains("retq"), "{}", transcript.text);
    assert_eq!(transcript.files_read, 1);
    assert_eq!(transcript.text.matches("\t.incbin ").count(), 1, "{}", transcript.text);
    assert!(transcript.text.matches("\t.ascii ").count() >= 5, "{}", transcript.text);
    assert_eq!(transcript.text.matches("\t.quad ").count(), 3 + 3, "{}", transcript.text);
    assert_eq!(transcript.text.matches("\t.reloc ").count(), 7 + 2, "{}", transcript.text);
    let again = host
        .assemble_object(&[b"\t.addrsig\n", transcript.text.as_bytes(), transcript.address_significance.as_bytes()], ObjectFormat::AsHost)
        .expect("the transcript assembles");
    let (before, mut after) = (said(&object), said(&again));
    // Private labels the assembler kept are the part's own (`.LmtpcK.`).
    let own = |name: &str| name.replacen(".Lmtpc0.", ".L", 1);
    after.symbols = after.symbols.into_iter().map(|(name, s)| (own(&name), s)).collect();
    for relocations in after.relocations.values_mut() {
        relocations.iter_mut().for_each(|r| r.2 = own(&r.2));
    }
    assert_eq!(before.sections, after.sections);
    assert_eq!(before.groups, after.groups);
    assert_eq!(before.symbols, after.symbols);
    assert_eq!(before.relocations, after.relocations);
    assert_eq!(before.address_significant, after.address_significant);
    // The cases the transcript takes care of are in the part: a string
    // pointed to through its mergeable section, a call to a function only
    // a relocation names, groups (one whose signature the assembler made),
    // thread-local data, .ident.
    assert_eq!(before.groups["_ZN1SIiEC5Ev"], [".text._ZN1SIiEC2Ev"]);
    assert_eq!(after.sections[".bss.m"].2, 64);
    assert!(before.relocations[".data"].iter().any(|r| r.2 == ".rodata.str1.1"), "{:?}", before.relocations);
    assert!(before.symbols.contains_key("puts") && before.symbols.contains_key("tls"));
    assert!(before.sections.contains_key(".text._Z6inlinev") && before.sections.contains_key(".comment"));
    assert_eq!(before.relocations[".data.rel.ro.table"].len(), 2, "{:?}", before.relocations);
    // A private string's address is its section's, in the table too.
    assert!(before.address_significant.iter().any(|s| s == ".rodata.str1.1"), "{:?}", before.address_significant);
}

#[test]
fn every_byte_written_out_assembles_as_itself() {
    // Every byte value, each followed by a digit (which a shorter octal
    // escape would take in), a quote and a backslash: 1,024 bytes, the
    // most a section written out (`.ascii`) holds, in code and in data.
    let bytes: String = (0..=255u8).map(|b| format!("\t.byte {b}, 0x37, 0x22, 0x5c\n")).collect();
    let part = format!("\t.text\n{bytes}\t.section .rodata.bytes,\"a\",@progbits\n{bytes}");
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let object = host.assemble_object(&[part.as_bytes()], ObjectFormat::AsHost).unwrap();
    let file = MemoryFile::with_bytes(&object).unwrap();
    let transcript = transcribe(&object, &file.path(), 0, &PartDecisions::default()).unwrap();
    assert_eq!(transcript.files_read, 0, "{}", transcript.text);
    let again = host.assemble_object(&[transcript.text.as_bytes()], ObjectFormat::AsHost).expect("the transcript assembles");
    let (before, after) = (said(&object), said(&again));
    assert_eq!(before.sections[".text"].3.len(), 1024);
    assert_eq!(before.sections, after.sections);
}

#[test]
fn a_transcript_the_file_does_not_hold_fails_its_check() {
    // The check of a transcript (before the host sees it) reads the bytes:
    // a file that is gone makes it fail, never the host. (The part's table
    // is the section too large to be written out.)
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let object = host.assemble_object(&[PART.as_bytes()], ObjectFormat::AsHost).unwrap();
    let transcript = transcribe(&object, "/proc/self/fd/999999", 0, &PartDecisions::default()).unwrap();
    assert_eq!(transcript.files_read, 1);
    let e = host.check_asm(transcript.text.as_bytes()).unwrap_err();
    assert!(e.contains("999999") || e.contains("could not find incbin file"), "{e}");
}

/// Two parts whose names meet: a common block one defines and the other
/// uses, a weak hidden function (a promoted local) the other calls, a
/// function each calls in the other.
const PART_A: &str = r#"	.text
	.globl	f
	.p2align	4, 0x90
	.type	f,@function
f:
	callq	g
	movl	shared(%rip), %eax
	retq
	.p2align	4, 0x90
	.weak	w.mtpc.1
	.hidden	w.mtpc.1
	.type	w.mtpc.1,@function
w.mtpc.1:
	retq
	.comm	shared,4,4
"#;

const PART_B: &str = r#"	.text
	.globl	g
	.p2align	4, 0x90
	.type	g,@function
g:
	callq	w.mtpc.1
	addl	shared(%rip), %eax
	jmp	f
"#;

#[test]
fn parts_transcribed_apart_assemble_together_as_their_texts_do() {
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let whole = host.assemble_object(&[PART_A.as_bytes(), PART_B.as_bytes()], ObjectFormat::AsHost).expect("the two texts assemble together");
    let mut files = Vec::new();
    let mut transcript = String::new();
    for (k, part) in [PART_A, PART_B].into_iter().enumerate() {
        let object = host.assemble_object(&[part.as_bytes()], ObjectFormat::AsHost).unwrap();
        let file = MemoryFile::with_bytes(&object).unwrap();
        transcript += &transcribe(&object, &file.path(), k, &PartDecisions::default()).unwrap().text;
        files.push(file);
    }
    let again = host.assemble_object(&[transcript.as_bytes()], ObjectFormat::AsHost).unwrap_or_else(|e| panic!("{e}:\n{transcript}"));
    let (before, after) = (said(&whole), said(&again));
    assert_eq!(before.symbols, after.symbols);
    assert_eq!(before.relocations, after.relocations);
    assert_eq!(before.sections, after.sections);
    assert_eq!(before.groups, after.groups);
}

/// The transcripts of `parts`' objects, each assembled from its text alone.
fn transcripts_of(host: &HostSettings, parts: &[&str]) -> (Vec<Transcript>, Vec<MemoryFile>) {
    let (mut transcripts, mut files) = (Vec::new(), Vec::new());
    for (k, part) in parts.iter().enumerate() {
        let object = host.assemble_object(&[part.as_bytes()], ObjectFormat::AsHost).unwrap_or_else(|e| panic!("{e}:\n{part}"));
        let file = MemoryFile::with_bytes(&object).unwrap();
        transcripts.push(transcribe(&object, &file.path(), k, &PartDecisions::default()).unwrap());
        files.push(file);
    }
    (transcripts, files)
}

#[test]
fn what_parts_clash_on_when_joined_is_found_without_assembling_them_together() {
    // Each part's transcript assembles alone; where the joined transcript
    // would not assemble, `check_across_parts` says why, and where it
    // finds nothing, the joined transcript assembles.
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let joined = |parts: &[&str]| {
        let (transcripts, files) = transcripts_of(&host, parts);
        for t in &transcripts {
            host.check_asm(t.text.as_bytes()).unwrap_or_else(|e| panic!("a part's transcript alone: {e}:\n{}", t.text));
        }
        let text: String = transcripts.iter().map(|t| t.text.as_str()).collect();
        let across = check_across_parts(&transcripts.iter().map(|t| &t.stated).collect::<Vec<_>>());
        (across, host.check_asm(text.as_bytes()), files)
    };
    let (across, assembled, _files) = joined(&[PART_A, PART_B]);
    assert_eq!(across, Ok(()));
    assert_eq!(assembled, Ok(()));
    let also_g = "\t.text\n\t.globl\tg\n\t.type\tg,@function\ng:\n\tretq\n";
    let weak_f = "\t.text\n\t.weak\tf\n\tcallq\tf\n";
    let (table, writable_table) = ("\t.section\t.tbl,\"a\",@progbits\n\t.byte\t1\n", "\t.section\t.tbl,\"aw\",@progbits\n\t.byte\t2\n");
    let names_local = "\t.text\nk:\n\tcallq\tw\n\tretq\n\t.text\nw:\n\tretq\n";
    // Two of these the assembler rejects joined; two it takes silently: a
    // transcript defines a symbol by assignment (`g = label+offset`), which
    // a second assignment moves, and a reference binds to a local of the
    // same name. Checking the joined transcript whole did not catch those.
    for (parts, why, rejected) in [
        ([PART_B, also_g], "symbol g is defined by parts 0 and 1", false),
        ([PART_A, weak_f], "symbol f is .globl in part 0 and .weak in part 1", true),
        ([table, writable_table], "section .tbl is declared with type 0x1, flags 0x2, entry size 0 by part 0 and type 0x1, flags 0x3", true),
        ([names_local, "\t.text\n\tcallq\tw\n"], "local symbol w of part 0 is named by part 1", false),
    ] {
        let (across, assembled, _files) = joined(&parts);
        let e = across.expect_err(why);
        assert!(e.contains(why), "{e}");
        assert_eq!(assembled.is_err(), rejected, "{why}: {assembled:?}");
    }
}

/// The file table every part numbers its files by (registered before any
/// part's code is written, see `shim/debug_files.cpp`), and two parts with
/// debug information: code with line entries, strings (some in both), a
/// compile unit naming them, its line table and its code.
const DEBUG_TABLE: &str = r#"	.file	0 "/src" "m.c" md5 0x0123456789abcdef0123456789abcdef
	.file	1 "/src" "m.h" md5 0xfedcba9876543210fedcba9876543210
	.text
"#;

const DEBUG_PART_A: &str = r#"	.text
	.globl	f
	.type	f,@function
f:
.Lfunc_begin0:
	.loc	0 3 0
	movl	$1, %eax
	.loc	1 7 2 prologue_end
	retq
.Lfunc_end0:
	.size	f, .Lfunc_end0-f
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"clang version 16.0.6"
.Linfo_string1:
	.asciz	"f"
.Linfo_string2:
	.asciz	"int"
	.section	.debug_info,"",@progbits
.Lcu_begin.a:
	.long	.Linfo_string0
	.long	.Linfo_string1
	.long	.Linfo_string2
	.long	.Lline_table_start0
	.quad	.Lfunc_begin0
	.section	.debug_line,"",@progbits
.Lline_table_start0:
"#;

const DEBUG_PART_B: &str = r#"	.text
	.globl	g
	.type	g,@function
g:
.Lfunc_begin1:
	.loc	1 9 0
	xorl	%eax, %eax
	retq
.Lfunc_end1:
	.size	g, .Lfunc_end1-g
	.section	.debug_str,"MS",@progbits,1
.Linfo_string0:
	.asciz	"clang version 16.0.6"
.Linfo_string1:
	.asciz	"unsigned int"
.Linfo_string2:
	.asciz	"g"
.Linfo_string3:
	.asciz	"int"
	.section	.debug_info,"",@progbits
.Lcu_begin.b:
	.long	.Linfo_string0
	.long	.Linfo_string1
	.long	.Linfo_string2
	.long	.Linfo_string3
	.long	.Lline_table_start0
	.quad	.Lfunc_begin1
	.section	.debug_line,"",@progbits
.Lline_table_start0:
"#;

/// The string a 32-bit relocation into `.debug_str` names.
fn debug_string(said: &Said, addend: i64) -> String {
    let bytes = &said.sections[".debug_str"].3[addend as usize..];
    String::from_utf8(bytes[..bytes.iter().position(|&b| b == 0).unwrap()].to_vec()).unwrap()
}

/// The parts' objects joined as `parallel.rs` joins them: what the merge
/// decides of them, the pools first, then each part's transcript (each
/// checked alone after the pools' stand-in), then the address-significance
/// tables; assembled. Also the parts' own objects.
fn joined(host: &HostSettings, prefix: &str, parts: &[&str]) -> (Vec<u8>, Vec<Vec<u8>>) {
    joined_promoted(host, prefix, parts, &HashMap::new())
}

/// [`joined`], with the locals the split promoted (`promoted`: by promoted
/// name, the name each had).
fn joined_promoted(host: &HostSettings, prefix: &str, parts: &[&str], promoted: &HashMap<String, String>) -> (Vec<u8>, Vec<Vec<u8>>) {
    let objects: Vec<Vec<u8>> = parts
        .iter()
        .map(|part| host.assemble_object(&[prefix.as_bytes(), part.as_bytes()], ObjectFormat::AsHost).unwrap_or_else(|e| panic!("{e}:\n{part}")).to_vec())
        .collect();
    let facts: Vec<PartFacts> = objects.iter().map(|o| PartFacts::read(o).unwrap()).collect();
    let decisions = object_merge::decide(&objects.iter().map(Vec::as_slice).collect::<Vec<_>>(), &facts, promoted).unwrap();
    let pools = MemoryFile::with_bytes(&decisions.pools.bytes()).unwrap();
    let files: Vec<MemoryFile> = objects.iter().map(|o| MemoryFile::with_bytes(o).unwrap()).collect();
    let mut text = decisions.pools.text(&pools.path());
    let mut address_significance = String::new();
    for (k, object) in objects.iter().enumerate() {
        let transcript = transcribe(object, &files[k].path(), k, &decisions.parts[k]).unwrap();
        let alone = decisions.pools.stand_in() + &transcript.text;
        host.check_asm(alone.as_bytes()).unwrap_or_else(|e| panic!("part {k} alone: {e}:\n{alone}"));
        text += &transcript.text;
        address_significance += &transcript.address_significance;
    }
    if facts.iter().any(PartFacts::has_address_significance) {
        text += "\t.addrsig\n";
        text += &address_significance;
    }
    let object = host.assemble_object(&[text.as_bytes()], ObjectFormat::AsHost).unwrap_or_else(|e| panic!("{e}:\n{text}"));
    (object.to_vec(), objects)
}

#[test]
fn parts_with_debug_information_hold_each_string_once() {
    // Each part's object holds its own strings and a line table of its
    // own. Joined, the host's object holds each string once, in the order
    // the parts first hold them, and each unit still names the strings and
    // the line table it did.
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let (joined, objects) = joined(&host, DEBUG_TABLE, &[DEBUG_PART_A, DEBUG_PART_B]);
    let (parts, after) = (objects.iter().map(|o| said(o)).collect::<Vec<_>>(), said(&joined));
    assert_eq!(after.sections[".debug_str"].3, b"clang version 16.0.6\0f\0int\0unsigned int\0g\0".to_vec());
    // Each unit names the strings it named in its own object.
    let names = |s: &Said, from: usize, to: usize| -> Vec<String> {
        s.relocations[".debug_info"][from..to].iter().filter(|r| r.2 == ".debug_str").map(|r| debug_string(s, r.3)).collect()
    };
    assert_eq!(names(&parts[0], 0, 3), ["clang version 16.0.6", "f", "int"]);
    assert_eq!(names(&parts[1], 0, 4), ["clang version 16.0.6", "unsigned int", "g", "int"]);
    assert_eq!(names(&after, 0, 3), names(&parts[0], 0, 3));
    assert_eq!(names(&after, 5, 9), names(&parts[1], 0, 4));
    // Two line tables, one per unit, each the one its part wrote: the
    // second unit's starts where the first part's ends.
    let line_tables = |s: &Said| s.relocations[".debug_info"].iter().filter(|r| r.2 == ".debug_line").map(|r| r.3).collect::<Vec<_>>();
    let first_lines = parts[0].sections[".debug_line"].3.len() as i64;
    assert_eq!(line_tables(&after), [0, first_lines]);
    let mut lines = parts[0].sections[".debug_line"].3.clone();
    lines.extend_from_slice(&parts[1].sections[".debug_line"].3);
    assert_eq!(after.sections[".debug_line"].3, lines);
    // The line tables' file names (the same in both parts) are held once,
    // and both tables' names point into them.
    assert_eq!(after.sections[".debug_line_str"], parts[0].sections[".debug_line_str"]);
    assert_eq!(parts[1].sections[".debug_line_str"], parts[0].sections[".debug_line_str"]);
    let line_names = |s: &Said| s.relocations[".debug_line"].iter().filter(|r| r.2 == ".debug_line_str").map(|r| r.3).collect::<Vec<_>>();
    let (a, b) = (line_names(&parts[0]), line_names(&parts[1]));
    assert_eq!(line_names(&after), [a.clone(), b].concat());
    assert!(!a.is_empty());
    // Each line table's addresses are its part's code, wherever the host
    // put it.
    let addresses = |s: &Said| s.relocations[".debug_line"].iter().filter(|r| r.2 == ".text").map(|r| r.3).collect::<Vec<_>>();
    assert_eq!(addresses(&after), [0, after.symbols["g"].4 as i64]);
    assert!(after.symbols["g"].4 >= parts[0].sections[".text"].3.len() as u64);
}

/// Two C++ parts as the code generator writes them: each a function of
/// its own whose exception handling names the personality routine through
/// the same group, a local `GCC_except_table0` of its own, and the same
/// weak object (one the pipeline adds to every module).
const CXX_PART: &str = r#"	.text
	.globl	FUNC
	.p2align	4, 0x90
	.type	FUNC,@function
FUNC:
	.cfi_startproc
	.cfi_personality 155, DW.ref.__gxx_personality_v0
	.cfi_lsda 27, GCC_except_table0
	callq	helper
	retq
	.cfi_endproc
	.p2align	4, 0x90
	.type	helper,@function
helper:
	leaq	GCC_except_table0(%rip), %rax
	retq
	.section	.gcc_except_table,"a",@progbits
GCC_except_table0:
	.byte	255
	.byte	SEED
	.type	__msan_track_origins,@object
	.section	.rodata,"a",@progbits
	.weak	__msan_track_origins
	.p2align	2
__msan_track_origins:
	.long	1
	.size	__msan_track_origins, 4
	.hidden	DW.ref.__gxx_personality_v0
	.weak	DW.ref.__gxx_personality_v0
	.section	.data.DW.ref.__gxx_personality_v0,"aGw",@progbits,DW.ref.__gxx_personality_v0,comdat
	.p2align	3
	.type	DW.ref.__gxx_personality_v0,@object
	.size	DW.ref.__gxx_personality_v0, 8
DW.ref.__gxx_personality_v0:
	.quad	__gxx_personality_v0
"#;

#[test]
fn parts_objects_joined_say_what_their_merged_text_says() {
    // What the merge of texts does (a group's section once, a weak object
    // once, locals two parts define renamed per part), the join of the
    // parts' objects does too: the same symbols and relocations, the same
    // code, the same groups.
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let parts = [CXX_PART.replace("FUNC", "f").replace("SEED", "1"), CXX_PART.replace("FUNC", "g").replace("SEED", "2")];
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    let merged = mtpc_passes::asm_merge::merge(&parts).unwrap();
    let from_text = said(&host.assemble_object(&[merged.text.as_bytes()], ObjectFormat::AsHost).unwrap());
    let (from_objects, _) = joined(&host, "", &parts);
    let from_objects = said(&from_objects);
    assert_eq!(from_objects.symbols.keys().collect::<Vec<_>>(), from_text.symbols.keys().collect::<Vec<_>>());
    for name in ["helper.mtpc0", "helper.mtpc1", "GCC_except_table0.mtpc0", "GCC_except_table0.mtpc1", "DW.ref.__gxx_personality_v0"] {
        assert!(from_objects.symbols.contains_key(name), "{name}: {:?}", from_objects.symbols.keys());
    }
    // Where each symbol is, how big and bound: the same, but data that a
    // later part's copy of the weak object leaves behind.
    for (name, theirs) in &from_text.symbols {
        let mine = &from_objects.symbols[name];
        assert_eq!((mine.0, mine.1, mine.2, &mine.3, mine.5), (theirs.0, theirs.1, theirs.2, &theirs.3, theirs.5), "{name}");
    }
    assert_eq!(from_objects.sections[".text"], from_text.sections[".text"]);
    assert_eq!(from_objects.sections[".data.DW.ref.__gxx_personality_v0"], from_text.sections[".data.DW.ref.__gxx_personality_v0"]);
    assert_eq!(from_objects.groups, from_text.groups);
    assert_eq!(from_objects.relocations[".text"], from_text.relocations[".text"]);
    assert_eq!(from_objects.relocations[".data.DW.ref.__gxx_personality_v0"], from_text.relocations[".data.DW.ref.__gxx_personality_v0"]);
    // Both parts' exception tables, each named by its own part.
    assert_eq!(from_objects.sections[".gcc_except_table"].3, [255, 1, 255, 2]);
}

/// A part that defines a promoted local (`-ffunction-sections`) and calls
/// it, and one that only calls it, as the partitions' code generators
/// print them: the local hidden and weak under its promoted name.
const PROMOTED_OWNER: &str = "\t.section\t.text.helper.mtpc.00ff,\"ax\",@progbits
\t.weak\thelper.mtpc.00ff
\t.hidden\thelper.mtpc.00ff
\t.type\thelper.mtpc.00ff,@function
\tint3
helper.mtpc.00ff:
\tmovl\t$7, %eax
\tretq
.Lhelper_end:
\t.size\thelper.mtpc.00ff, .Lhelper_end-helper.mtpc.00ff
\t.text
\t.globl\tf
\t.type\tf,@function
f:
\tjmp\thelper.mtpc.00ff
";
const PROMOTED_CALLER: &str = "\t.text
\t.globl\tg
\t.type\tg,@function
g:
\tcallq\thelper.mtpc.00ff
\tretq
\t.data
\t.quad\thelper.mtpc.00ff
";

#[test]
fn a_promoted_local_one_part_defines_is_local_again_in_the_joined_object() {
    // Assembled from the joined transcripts, the local is stock's: local,
    // of default visibility, under its own name, in a section named after
    // it; every part's calls and data reach it through its section.
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let promoted = HashMap::from([("helper.mtpc.00ff".to_string(), "helper".to_string())]);
    let (object, _) = joined_promoted(&host, "", &[PROMOTED_OWNER, PROMOTED_CALLER], &promoted);
    let local = said(&object);
    assert!(!local.symbols.keys().any(|name| name.contains("mtpc")), "{:?}", local.symbols.keys());
    assert!(!local.sections.keys().any(|name| name.contains("mtpc")), "{:?}", local.sections.keys());
    let helper = &local.symbols["helper"];
    assert_eq!((helper.0, helper.1, helper.2, helper.3.as_str(), helper.5), (elf::STB_LOCAL, elf::STT_FUNC, elf::STV_DEFAULT, ".text.helper", 6));
    assert_eq!(helper.4, 1, "after the part's int3");
    // Through its section, at its offset: the calls (-4 from the word's
    // end), the address.
    let reached = |section: &str| local.relocations[section].iter().map(|r| (r.2.as_str(), r.3)).collect::<Vec<_>>();
    assert_eq!(reached(".text"), [(".text.helper", -3), (".text.helper", -3)], "{:?}", local.relocations);
    assert_eq!(reached(".data"), [(".text.helper", 1)], "{:?}", local.relocations);
    // Without the promoted locals, as before: the promoted name, hidden.
    let (object, _) = joined(&host, "", &[PROMOTED_OWNER, PROMOTED_CALLER]);
    let kept = said(&object);
    assert_eq!(kept.symbols["helper.mtpc.00ff"].2, elf::STV_HIDDEN);
}

/// The call graph profile of an object: (caller, callee, weight) by name.
fn call_graph_profile(data: &[u8]) -> Vec<(String, String, u64)> {
    use object::read::elf::Rel as _;
    let header = Header::parse(data).unwrap();
    let endian = header.endian().unwrap();
    let sections = header.sections(endian, data).unwrap();
    let symbols = sections.symbols(endian, data, elf::SHT_SYMTAB).unwrap();
    let name = |index: u32| {
        let symbol = symbols.symbol(object::SymbolIndex(index as usize)).unwrap();
        String::from_utf8(symbols.symbol_name(endian, symbol).unwrap().to_vec()).unwrap()
    };
    let (index, profile) = sections.iter().enumerate().find(|(_, s)| s.sh_type(endian) == 0x6fff_4c09).expect("a call graph profile");
    let weights = profile.data(endian, data).unwrap();
    let (rels, _) = sections.iter().find(|s| s.sh_info(endian) as usize == index).unwrap().rel(endian, data).unwrap().unwrap();
    weights
        .chunks_exact(8)
        .enumerate()
        .map(|(i, w)| {
            let at: Vec<u32> = rels.iter().filter(|r| r.r_offset(endian) as usize == i * 8).map(|r| r.r_sym(endian)).collect();
            (name(at[0]), name(at[1]), u64::from_le_bytes(w.try_into().unwrap()))
        })
        .collect()
}

#[test]
fn a_call_graph_profile_names_the_same_edges_transcribed() {
    // Profiles give the object the call graph's edge weights, each naming
    // its caller and callee by relocations: the transcript states them as
    // `.cg_profile`, which the host's assembler writes back alike.
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    let part = "\t.text\n\t.globl\tf\nf:\n\tcallq\tg\n\tcallq\th\n\tretq\nh:\n\tretq\n\t.cg_profile f, g, 40\n\t.cg_profile f, h, 2\n";
    let (joined, objects) = joined(&host, "", &[part]);
    let expected = [("f".to_string(), "g".to_string(), 40), ("f".to_string(), "h".to_string(), 2)];
    assert_eq!(call_graph_profile(&objects[0]), expected);
    assert_eq!(call_graph_profile(&joined), expected);
}

/// A constructor of an explicit instantiation in its `C5` group, whose
/// signature no symbol defines (the assembler makes it in the group).
const C5_PART: &str = r#"	.section	.text._ZN1SIiEC2Ev,"axG",@progbits,_ZN1SIiEC5Ev,comdat
	.weak	_ZN1SIiEC2Ev
	.type	_ZN1SIiEC2Ev,@function
_ZN1SIiEC2Ev:
	retq
"#;

#[test]
fn a_group_no_symbol_names_is_one_parts() {
    let host = HostSettings::for_triple("x86_64-pc-linux-gnu").unwrap();
    // Written by one part and called from another: joined, the group named
    // as the part's object names it.
    let caller = "\t.text\n\t.globl\tg\n\t.type\tg,@function\ng:\n\tjmp\t_ZN1SIiEC2Ev\n";
    let (object, parts) = joined(&host, "", &[C5_PART, caller]);
    assert_eq!(said(&object).groups, said(&parts[0]).groups);
    assert_eq!(said(&object).groups["_ZN1SIiEC5Ev"], [".text._ZN1SIiEC2Ev"]);
    // Written by two parts: the host's assembler would name both groups
    // alike, and nothing compares the copies.
    let object = host.assemble_object(&[C5_PART.as_bytes()], ObjectFormat::AsHost).unwrap().to_vec();
    let objects = [object.clone(), object];
    let facts: Vec<PartFacts> = objects.iter().map(|o| PartFacts::read(o).unwrap()).collect();
    let e = object_merge::decide(&objects.iter().map(Vec::as_slice).collect::<Vec<_>>(), &facts, &HashMap::new()).unwrap_err();
    assert!(e.contains("group _ZN1SIiEC5Ev is written by parts 0 and 1"), "{e}");
}
