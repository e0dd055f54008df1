//! Transcribes a part's object into directives the host assembles without
//! parsing one instruction: clang 16 is handed these instead of the merged
//! text, whose every instruction it would parse again, serially.
//!
//! A part's object (ELF64 x86-64, relocatable, as LLVM's MC layer writes
//! it) becomes: each section's bytes read with `.incbin` from a file that
//! holds the object, starting at a multiple of the section's alignment (so
//! nothing inside moves); each symbol assigned its offset in its section;
//! each relocation a `.reloc` with its own type; the address-significance
//! table as `.addrsig_sym` lines. What a transcript cannot state the same
//! way is declined, named (the host then assembles the merged text): see
//! [`section_type`], [`section_flags`], and the `Err`s below.
//!
//! Debug information is transcribed as any other section: each part's
//! object has its own compile units, each with the line table its part's
//! assembler wrote. The string sections the parts share are read once
//! (see [`FirstPart`]).

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use object::elf;
use object::read::elf::{FileHeader, Rela as _, SectionHeader as _, Sym as _};
use object::LittleEndian;

type Header = elf::FileHeader64<LittleEndian>;

/// The relocation types of x86-64 by number, as the assembler's `.reloc`
/// names them (LLVM's `ELFRelocs/x86_64.def`).
const X86_64_RELOCATIONS: [(u32, &str); 40] = [
    (0, "R_X86_64_NONE"),
    (1, "R_X86_64_64"),
    (2, "R_X86_64_PC32"),
    (3, "R_X86_64_GOT32"),
    (4, "R_X86_64_PLT32"),
    (5, "R_X86_64_COPY"),
    (6, "R_X86_64_GLOB_DAT"),
    (7, "R_X86_64_JUMP_SLOT"),
    (8, "R_X86_64_RELATIVE"),
    (9, "R_X86_64_GOTPCREL"),
    (10, "R_X86_64_32"),
    (11, "R_X86_64_32S"),
    (12, "R_X86_64_16"),
    (13, "R_X86_64_PC16"),
    (14, "R_X86_64_8"),
    (15, "R_X86_64_PC8"),
    (16, "R_X86_64_DTPMOD64"),
    (17, "R_X86_64_DTPOFF64"),
    (18, "R_X86_64_TPOFF64"),
    (19, "R_X86_64_TLSGD"),
    (20, "R_X86_64_TLSLD"),
    (21, "R_X86_64_DTPOFF32"),
    (22, "R_X86_64_GOTTPOFF"),
    (23, "R_X86_64_TPOFF32"),
    (24, "R_X86_64_PC64"),
    (25, "R_X86_64_GOTOFF64"),
    (26, "R_X86_64_GOTPC32"),
    (27, "R_X86_64_GOT64"),
    (28, "R_X86_64_GOTPCREL64"),
    (29, "R_X86_64_GOTPC64"),
    (30, "R_X86_64_GOTPLT64"),
    (31, "R_X86_64_PLTOFF64"),
    (32, "R_X86_64_SIZE32"),
    (33, "R_X86_64_SIZE64"),
    (34, "R_X86_64_GOTPC32_TLSDESC"),
    (35, "R_X86_64_TLSDESC_CALL"),
    (36, "R_X86_64_TLSDESC"),
    (37, "R_X86_64_IRELATIVE"),
    (41, "R_X86_64_GOTPCRELX"),
    (42, "R_X86_64_REX_GOTPCRELX"),
];

/// `SHT_LLVM_ADDRSIG`: the address-significance table.
const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;

/// The section flags a transcript can state, with the letter of each in a
/// `.section` directive (and `G`, a group member, said by the group).
const SECTION_FLAG_LETTERS: [(u64, char); 8] = [
    (elf::SHF_ALLOC as u64, 'a'),
    (elf::SHF_WRITE as u64, 'w'),
    (elf::SHF_EXECINSTR as u64, 'x'),
    (elf::SHF_MERGE as u64, 'M'),
    (elf::SHF_STRINGS as u64, 'S'),
    (elf::SHF_TLS as u64, 'T'),
    (elf::SHF_EXCLUDE as u64, 'e'),
    (elf::SHF_GNU_RETAIN as u64, 'R'),
];

/// A part's object as directives.
#[derive(Debug, Default)]
pub struct Transcript {
    /// Sections, relocations and symbols.
    pub text: String,
    /// The `.addrsig_sym` lines (the table is the object's only if its text
    /// says `.addrsig`).
    pub address_significance: String,
    /// How many `.incbin` lines the text has: each maps the whole file
    /// again in the assembler, for as long as it runs.
    pub files_read: usize,
    /// What it says of names and sections another part's transcript may
    /// say too (see [`check_across_parts`]).
    pub stated: Stated,
}

/// How a transcript binds a symbol it names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binding {
    /// Defined, and known to its part only.
    Local,
    /// `.globl`: defined here.
    Global,
    /// `.weak`: defined here, or a weak reference.
    Weak,
    /// Named by a reference that states no binding (`.type name,@notype`,
    /// or a type of its own).
    Reference,
}

impl Binding {
    /// How a transcript states it.
    fn directive(self) -> &'static str {
        match self {
            Binding::Global => ".globl",
            Binding::Weak => ".weak",
            Binding::Local => "local",
            Binding::Reference => "a reference",
        }
    }
}

/// What one part's transcript says that the others' may say too: the
/// symbols it defines and names, and its sections' attributes. The parts'
/// transcripts are checked one by one; where they meet in the host's
/// text, these are what can make the assembler fail (see
/// [`check_across_parts`]). What a reference states beyond its binding
/// (a visibility, a type) applies to the defining part's symbol in the
/// joined text, as it does in the merged text: the plan gives a symbol one
/// visibility and type in every partition.
#[derive(Debug, Default)]
pub struct Stated {
    /// The symbols it defines (labels, assignments, commons), bound.
    defines: Vec<(String, Binding)>,
    /// The undefined symbols it names: `Weak` or `Reference`.
    references: Vec<(String, Binding)>,
    /// Its sections by name and group, with type, flags and entry size.
    sections: Vec<((String, Option<String>), (u32, u64, u64))>,
}

/// Checks what the transcripts of all parts, joined in order, say of the
/// same names and sections, where one part's check cannot see the others:
/// a symbol two parts define (the assembler's redefinition error); a
/// binding two parts state differently (`.weak` then `.globl` is an
/// error, `.globl` then `.weak` a warning); a part's local symbol another
/// part names (its `.globl` or reference would take that local, silently);
/// a section two parts declare with other type, flags or entry size (the
/// assembler's "changed section ..." errors). Labels the transcripts make
/// are their part's own by name (`.Lmtpc.partK.`).
pub fn check_across_parts(parts: &[&Stated]) -> Result<(), String> {
    // Each name: the part that defines it and how, the binding first
    // stated and by which part, a part that names it otherwise.
    #[derive(Default)]
    struct Seen {
        defined: Option<(usize, Binding)>,
        first_binding: Option<(usize, Binding)>,
        named: Option<usize>,
    }
    let mut names: HashMap<&str, Seen> = HashMap::new();
    let mut sections: HashMap<&(String, Option<String>), (usize, (u32, u64, u64))> = HashMap::new();
    for (k, stated) in parts.iter().enumerate() {
        for (name, binding) in &stated.defines {
            let seen = names.entry(name).or_default();
            if let Some((first, _)) = seen.defined {
                return Err(format!("symbol {name} is defined by parts {first} and {k}"));
            }
            seen.defined = Some((k, *binding));
        }
        for (name, binding) in stated.defines.iter().chain(&stated.references) {
            let seen = names.entry(name).or_default();
            if matches!(binding, Binding::Global | Binding::Weak) {
                match seen.first_binding {
                    Some((first, earlier)) if earlier != *binding => {
                        return Err(format!("symbol {name} is {} in part {first} and {} in part {k}", earlier.directive(), binding.directive()));
                    }
                    Some(_) => {}
                    None => seen.first_binding = Some((k, *binding)),
                }
            }
            if seen.defined.is_none_or(|(owner, _)| owner != k) {
                seen.named.get_or_insert(k);
            }
            if let (Some((owner, Binding::Local)), Some(other)) = (seen.defined, seen.named) {
                return Err(format!("local symbol {name} of part {owner} is named by part {other}"));
            }
        }
        for (key, attributes) in &stated.sections {
            let (first, theirs) = *sections.entry(key).or_insert((k, *attributes));
            if theirs != *attributes {
                let said = |(sh_type, flags, entsize): (u32, u64, u64)| format!("type {sh_type:#x}, flags {flags:#x}, entry size {entsize}");
                return Err(format!("section {} is declared with {} by part {first} and {} by part {k}", key.0, said(theirs), said(*attributes)));
            }
        }
    }
    Ok(())
}

/// What a later part's transcript may name through the first part's: each
/// part is assembled with the merged text's table first, so each part's
/// `.debug_str` begins with the merge's pool and its `.debug_line_str` with
/// the file table's names. A later part reads only what follows the strings
/// it shares with the first part and names those through the first part's
/// chunk: the host's object holds them once, as the merged text's does.
/// Read once from part 0's object ([`FirstPart::of`]).
#[derive(Debug, Default)]
pub struct FirstPart {
    /// Part 0's debug string sections a later part may share (see
    /// [`Transcriber::shares_strings`]).
    strings: Vec<FirstStrings>,
}

/// One of the first part's debug string sections.
#[derive(Debug)]
struct FirstStrings {
    name: String,
    flags: u64,
    /// Its `.section` directive.
    directive: String,
    /// The label of its chunk in the first part's transcript.
    label: String,
    bytes: Vec<u8>,
}

impl FirstPart {
    /// The debug string sections of part 0's object `object`.
    pub fn of(object: &[u8]) -> Result<FirstPart, String> {
        let mut first = Transcriber::new(object, "", 0).map_err(|e| format!("part 0: {e}"))?;
        first.plan_sections().map_err(|e| format!("part 0: {e}"))?;
        let mut strings = Vec::new();
        for index in (0..first.plans.len()).filter(|&index| first.shares_strings(index)) {
            let plan = first.chunk(index).expect("a section that shares strings is a chunk");
            let bytes = first.section_bytes(index)?.to_vec();
            let directive = section_directive(plan)?;
            strings.push(FirstStrings { name: plan.name.clone(), flags: plan.flags, directive, label: first.chunk_label(index), bytes });
        }
        Ok(FirstPart { strings })
    }

    /// What stands for the first part's transcript where a later part's
    /// is checked alone: each chunk a later part may name, as the same
    /// section, label and size (zeros), so that the later part's labels and
    /// relocations into it resolve as they do in the host's text.
    pub fn stand_in(&self) -> String {
        let mut out = String::new();
        for strings in &self.strings {
            let _ = writeln!(out, "{}\n{}:\n\t.zero {}", strings.directive, strings.label, strings.bytes.len());
        }
        out
    }
}

/// The transcript of part `part`'s object `object`, whose bytes the host
/// reads from the file at `path` (the same bytes); `first`: part 0's object
/// (ignored for part 0 itself). `Err` says what it cannot transcribe.
pub fn transcribe(object: &[u8], path: &str, part: usize, first: Option<&FirstPart>) -> Result<Transcript, String> {
    let mut transcriber = Transcriber::new(object, path, part)?;
    transcriber.plan_sections()?;
    if let Some(first) = first.filter(|_| part > 0) {
        transcriber.share_debug_strings_with(first)?;
    }
    transcriber.run()
}

/// Whether a part's text defines a symbol the assembler may leave out of
/// the part's object: an assignment in inline assembly (between `#APP` and
/// `#NO_APP`) whose value names a symbol another part defines is not in
/// the part's symbol table, so its transcript would lose it.
pub fn has_inline_asm_assignment(text: &[u8]) -> bool {
    let mut inline_asm = false;
    for line in text.split(|&b| b == b'\n') {
        match line.trim_ascii() {
            b"#APP" => inline_asm = true,
            b"#NO_APP" => inline_asm = false,
            line if inline_asm && assigns_a_symbol(line) => return true,
            _ => {}
        }
    }
    false
}

/// Whether module-level assembly may assign a symbol (see
/// [`has_inline_asm_assignment`]). It reaches a part's text as written,
/// not bracketed nor printed again, so any mention counts: a directive
/// after a label or a `;`, in any case, in a macro, or an `.include`.
pub fn module_asm_assigns_a_symbol(asm: &str) -> bool {
    let asm = asm.to_ascii_lowercase();
    asm.contains('=')
        || [".set", ".equ", ".equiv", ".eqv", ".symver", ".weakref", ".include"]
            .iter()
            .any(|d| asm.match_indices(d).any(|(at, _)| asm.as_bytes().get(at + d.len()).is_some_and(|b| b.is_ascii_whitespace())))
}

/// An assembly line that gives a symbol a value by an expression.
fn assigns_a_symbol(line: &[u8]) -> bool {
    let directive = [".set", ".equ", ".equiv", ".eqv", ".symver", ".weakref"]
        .iter()
        .any(|d| line.starts_with(d.as_bytes()) && line.get(d.len()).is_some_and(|b| b.is_ascii_whitespace()));
    directive || line.contains(&b'=')
}

/// A relocation of a section: where, which type, against which symbol
/// (by index), plus what.
#[derive(Clone, Copy)]
struct Relocation {
    offset: u64,
    r_type: u32,
    symbol: usize,
    addend: i64,
}

/// A section as the transcript emits it.
struct SectionPlan {
    name: String,
    kind: SectionKind,
    sh_type: u32,
    flags: u64,
    align: u64,
    entsize: u64,
    offset: u64,
    size: u64,
    /// The signature of the COMDAT group it belongs to.
    group: Option<String>,
    /// Its first bytes are the first part's (see [`FirstPart`]).
    shared: Option<SharedPrefix>,
}

/// The first `len` bytes of a section, which the transcript names through
/// the first part's chunk of the same section, labelled `first_label`.
#[derive(Clone, Debug)]
struct SharedPrefix {
    first_label: String,
    len: u64,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SectionKind {
    /// Bytes (or zeros), emitted as a chunk with a label at its start.
    Chunk,
    /// `.comment`: its strings become `.ident` directives.
    Identification,
    /// The address-significance table: `.addrsig_sym` lines.
    AddressSignificance,
    /// Read for what it says of others (symbols, strings, relocations, groups).
    Bookkeeping,
}

struct Transcriber<'a> {
    data: &'a [u8],
    endian: LittleEndian,
    sections: object::read::elf::SectionTable<'a, Header>,
    symbols: object::read::elf::SymbolTable<'a, Header>,
    path: String,
    part: usize,
    plans: Vec<Option<SectionPlan>>,
}

impl<'a> Transcriber<'a> {
    fn new(data: &'a [u8], path: &str, part: usize) -> Result<Self, String> {
        let unreadable = |e: object::read::Error| format!("the object cannot be read ({e})");
        let header = Header::parse(data).map_err(unreadable)?;
        let endian = header.endian().map_err(unreadable)?;
        if header.e_machine(endian) != elf::EM_X86_64 || header.e_type(endian) != elf::ET_REL {
            return Err("the object is not an x86-64 relocatable object".into());
        }
        let sections = header.sections(endian, data).map_err(unreadable)?;
        let symbols = sections.symbols(endian, data, elf::SHT_SYMTAB).map_err(unreadable)?;
        if symbols.shndx_section().0 != 0 {
            return Err("the object has extended section indexes".into());
        }
        Ok(Transcriber { data, endian, sections, symbols, path: path.to_string(), part, plans: Vec::new() })
    }

    fn run(self) -> Result<Transcript, String> {
        let mut out = String::new();
        let mut files_read = 0;
        let mut stated = Stated::default();
        let _ = writeln!(out, "# part {}: its object, transcribed", self.part);
        // Labels at offsets in mergeable sections that relocations point to
        // through the section (see `target`), defined after the sections.
        let mut merge_labels = BTreeSet::new();
        let relocations = self.relocations_by_section()?;
        for (index, plan) in self.plans.iter().enumerate() {
            let Some(plan) = plan else { continue };
            if plan.kind != SectionKind::Chunk {
                continue;
            }
            let _ = writeln!(out, "{}", section_directive(plan)?);
            // What the directive states (an entry size only if mergeable).
            let entsize = if plan.flags & elf::SHF_MERGE as u64 != 0 { plan.entsize } else { 0 };
            stated.sections.push(((plan.name.clone(), plan.group.clone()), (plan.sh_type, plan.flags, entsize)));
            // An empty section's alignment is the assembler's default
            // (4 for .text), not its content's: no padding for it.
            if plan.align > 1 && plan.size > 0 {
                let _ = writeln!(out, "\t.p2align {}", plan.align.trailing_zeros());
            }
            // A shared prefix is the first part's: the chunk is the rest.
            let skipped = plan.shared.as_ref().map_or(0, |shared| shared.len);
            let _ = writeln!(out, "{}:", self.chunk_label(index));
            if plan.size > skipped {
                if plan.sh_type == elf::SHT_NOBITS {
                    let _ = writeln!(out, "\t.zero {}", plan.size);
                } else {
                    let _ = writeln!(out, "\t.incbin \"{}\", {}, {}", self.path, plan.offset + skipped, plan.size - skipped);
                    files_read += 1;
                }
            }
            // The relocations of this section, while it is the current one
            // (`.reloc` adds to the fragment its offset's label is in).
            for &Relocation { offset, r_type, symbol, addend } in relocations.get(&index).map(Vec::as_slice).unwrap_or(&[]) {
                if offset >= plan.size {
                    return Err(format!("a relocation of {} is past its end", plan.name));
                }
                let name = X86_64_RELOCATIONS
                    .iter()
                    .find(|(number, _)| *number == r_type)
                    .map(|(_, name)| *name)
                    .ok_or_else(|| format!("relocation type {r_type} has no name for .reloc"))?;
                let target = self.target(symbol, addend, &mut merge_labels)?;
                let _ = writeln!(out, "\t.reloc {}+{}, {}, {}", self.chunk_label(index), offset, name, target);
            }
        }
        for &(section, offset) in &merge_labels {
            let _ = writeln!(out, "{} = {}", self.merge_label(section, offset), self.position(section, offset as u64));
        }
        self.symbols_text(&mut out, &mut stated)?;
        let mut address_significance = String::new();
        for (index, plan) in self.plans.iter().enumerate() {
            match plan.as_ref().map(|p| p.kind) {
                Some(SectionKind::Identification) => self.identification_text(index, &mut out)?,
                Some(SectionKind::AddressSignificance) => self.address_significance_text(index, &mut address_significance)?,
                _ => {}
            }
        }
        Ok(Transcript { text: out, address_significance, files_read, stated })
    }

    /// What each section is for the transcript; declines a section it
    /// cannot state.
    fn plan_sections(&mut self) -> Result<(), String> {
        let endian = self.endian;
        let mut groups: HashMap<usize, String> = HashMap::new();
        for (index, header) in self.sections.iter().enumerate() {
            if header.sh_type(endian) != elf::SHT_GROUP {
                continue;
            }
            let (flag, members) = header
                .group(endian, self.data)
                .map_err(|e| format!("a group cannot be read ({e})"))?
                .ok_or("a group section has no members")?;
            if flag != elf::GRP_COMDAT {
                return Err(format!("section {index} is a group that is not a COMDAT"));
            }
            let signature = self
                .symbols
                .symbol(object::SymbolIndex(header.sh_info(endian) as usize))
                .and_then(|s| self.symbols.symbol_name(endian, s))
                .map_err(|e| format!("a group's signature cannot be read ({e})"))?;
            let signature = asm_name(signature)?;
            for member in members {
                groups.insert(member.get(endian) as usize, signature.clone());
            }
        }
        let mut plans = Vec::with_capacity(self.sections.len());
        for (index, header) in self.sections.iter().enumerate() {
            if index == 0 {
                plans.push(None);
                continue;
            }
            let name = self
                .sections
                .section_name(endian, header)
                .map_err(|e| format!("a section name cannot be read ({e})"))?;
            let name = String::from_utf8(name.to_vec()).map_err(|_| "a section name is not UTF-8".to_string())?;
            let sh_type = header.sh_type(endian);
            let flags = header.sh_flags(endian);
            let kind = match sh_type {
                elf::SHT_SYMTAB | elf::SHT_STRTAB | elf::SHT_RELA | elf::SHT_GROUP => SectionKind::Bookkeeping,
                SHT_LLVM_ADDRSIG => SectionKind::AddressSignificance,
                _ if name == ".comment" => SectionKind::Identification,
                _ => {
                    section_type(sh_type).ok_or_else(|| format!("section {name} has type {sh_type:#x}"))?;
                    SectionKind::Chunk
                }
            };
            let group = groups.get(&index).cloned();
            if kind == SectionKind::Chunk {
                section_flags(flags & !(elf::SHF_GROUP as u64)).ok_or_else(|| format!("section {name} has flags {flags:#x}"))?;
                if flags & elf::SHF_GROUP as u64 != 0 && group.is_none() {
                    return Err(format!("section {name} is in no group"));
                }
            }
            let align = header.sh_addralign(endian).max(1);
            if !align.is_power_of_two() {
                return Err(format!("section {name} has alignment {align}"));
            }
            plans.push(Some(SectionPlan {
                name,
                kind,
                sh_type,
                flags,
                align,
                entsize: header.sh_entsize(endian),
                offset: header.sh_offset(endian),
                size: header.sh_size(endian),
                group,
                shared: None,
            }));
        }
        // Two sections of one name and group are two sections to the part
        // (`unique` ids); `.section` would give the host one.
        let mut seen = std::collections::HashSet::new();
        for plan in plans.iter().flatten().filter(|p| p.kind == SectionKind::Chunk) {
            if !seen.insert((&plan.name, &plan.group)) {
                return Err(format!("two sections are named {}", plan.name));
            }
        }
        self.plans = plans;
        Ok(())
    }

    /// Marks the bytes each debug string section of this part shares with
    /// the same section of the first part (whole strings, from the start):
    /// the transcript names them through the first part's chunk.
    fn share_debug_strings_with(&mut self, first: &FirstPart) -> Result<(), String> {
        let sharing: Vec<usize> = (0..self.plans.len()).filter(|&index| self.shares_strings(index)).collect();
        for index in sharing {
            let Some(plan) = self.chunk(index) else { continue };
            let Some(theirs) = first.strings.iter().find(|s| s.name == plan.name && s.flags == plan.flags) else { continue };
            let len = shared_strings_len(self.section_bytes(index)?, &theirs.bytes) as u64;
            if let (true, Some(Some(plan))) = (len > 0, self.plans.get_mut(index)) {
                plan.shared = Some(SharedPrefix { first_label: theirs.label.clone(), len });
            }
        }
        Ok(())
    }

    /// Whether section `index` is one whose leading strings a later part may
    /// name through the first part's: a debug section of single-byte
    /// strings, unaligned, in no group, that no relocation applies to.
    fn shares_strings(&self, index: usize) -> bool {
        let strings = (elf::SHF_MERGE | elf::SHF_STRINGS) as u64;
        self.chunk(index).is_some_and(|plan| {
            plan.name.starts_with(".debug")
                && plan.sh_type == elf::SHT_PROGBITS
                && plan.flags & strings == strings
                && plan.group.is_none()
                && plan.entsize <= 1
                && plan.align <= 1
        }) && !self.is_relocated(index)
    }

    /// Whether relocations apply to section `index`.
    fn is_relocated(&self, index: usize) -> bool {
        self.sections
            .iter()
            .any(|header| header.sh_type(self.endian) == elf::SHT_RELA && header.sh_info(self.endian) as usize == index)
    }

    /// Each chunk section's relocations.
    fn relocations_by_section(&self) -> Result<HashMap<usize, Vec<Relocation>>, String> {
        let endian = self.endian;
        let mut by_section: HashMap<usize, Vec<Relocation>> = HashMap::new();
        for header in self.sections.iter() {
            if header.sh_type(endian) == elf::SHT_REL {
                return Err("the object has implicit-addend relocations".into());
            }
            let Some((relas, _)) = header.rela(endian, self.data).map_err(|e| format!("relocations cannot be read ({e})"))? else {
                continue;
            };
            let target = header.sh_info(endian) as usize;
            if self.chunk(target).is_none() {
                return Err(format!("relocations apply to section {target}, which is not transcribed"));
            }
            let list = by_section.entry(target).or_default();
            for rela in relas {
                list.push(Relocation {
                    offset: rela.r_offset(endian),
                    r_type: rela.r_type(endian, false),
                    symbol: rela.r_sym(endian, false) as usize,
                    addend: rela.r_addend(endian),
                });
            }
        }
        Ok(by_section)
    }

    /// The expression a relocation against symbol `index` plus `addend`
    /// becomes.
    fn target(&self, index: usize, addend: i64, merge_labels: &mut BTreeSet<(usize, i64)>) -> Result<String, String> {
        if index == 0 {
            return Err("a relocation has no symbol".into());
        }
        let symbol = self.symbol(index)?;
        if symbol.st_type() == elf::STT_SECTION {
            let section = symbol.st_shndx(self.endian) as usize;
            let plan = self.chunk(section).ok_or_else(|| format!("a relocation points into section {section}, which is not transcribed"))?;
            if plan.flags & elf::SHF_TLS as u64 != 0 {
                return Err(format!("a relocation points into thread-local {} by the section", plan.name));
            }
            if plan.flags & elf::SHF_MERGE as u64 != 0 {
                if addend < 0 {
                    return Err(format!("a relocation points before the start of {}", plan.name));
                }
                // The section plus an offset names the piece at that offset
                // to a linker that merges pieces; a label plus an offset
                // would not (the assembler keeps a symbol for it, and the
                // linker adds the offset after moving the piece). A label at
                // the offset itself turns back into the section plus it.
                merge_labels.insert((section, addend));
                return Ok(self.merge_label(section, addend));
            }
            return Ok(format!("{}{}", self.chunk_label(section), signed(addend)));
        }
        let name = self.symbol_name(index)?;
        if symbol.st_bind() == elf::STB_LOCAL && !self.local_kept_in_relocations(symbol, addend) {
            // The part's assembler kept a local symbol for a reason the
            // transcript does not carry (a GOT or PLT reference to it); the
            // host's would relocate through its section.
            return Err(format!("a relocation names local symbol {name} (a GOT or PLT reference)"));
        }
        Ok(format!("{name}{}", signed(addend)))
    }

    /// Whether the assembler keeps a relocation's local symbol (rather than
    /// its section plus an offset) for what the symbol is: thread-local, an
    /// indirect function, or a piece of a mergeable section pointed into
    /// (LLVM's `ELFObjectWriter::shouldRelocateWithSymbol`). Only those
    /// reasons reach the host through a transcript.
    fn local_kept_in_relocations(&self, symbol: &elf::Sym64<LittleEndian>, addend: i64) -> bool {
        let flags = match self.plans.get(symbol.st_shndx(self.endian) as usize) {
            Some(Some(plan)) => plan.flags,
            _ => 0,
        };
        symbol.st_type() == elf::STT_TLS
            || symbol.st_type() == elf::STT_GNU_IFUNC
            || flags & elf::SHF_TLS as u64 != 0
            || (flags & elf::SHF_MERGE as u64 != 0 && addend != 0)
    }

    /// Every symbol of the object: its value (an offset in its section's
    /// chunk, an absolute value, or a common block), binding, type, size
    /// and visibility; what it defines and names into `stated`.
    fn symbols_text(&self, out: &mut String, stated: &mut Stated) -> Result<(), String> {
        let endian = self.endian;
        for index in 1..self.symbols.len() {
            let symbol = self.symbol(index)?;
            let st_type = symbol.st_type();
            if st_type == elf::STT_SECTION || st_type == elf::STT_FILE {
                continue;
            }
            let name = self.symbol_name(index)?;
            if symbol.st_other & !3 != 0 {
                return Err(format!("symbol {name} has other bits {:#x}", symbol.st_other));
            }
            let shndx = symbol.st_shndx(endian);
            let value = symbol.st_value(endian);
            let size = symbol.st_size(endian);
            match shndx {
                elf::SHN_UNDEF => {}
                elf::SHN_ABS => {
                    let _ = writeln!(out, "{name} = {value}");
                }
                elf::SHN_COMMON => {
                    let _ = writeln!(out, "\t.comm {name}, {size}, {value}");
                }
                section if section < elf::SHN_LORESERVE => {
                    let section = section as usize;
                    if self.chunk(section).is_none_or(|plan| value > plan.size) {
                        return Err(format!("symbol {name} is defined where the transcript has no bytes"));
                    }
                    let _ = writeln!(out, "{name} = {}", self.position(section, value));
                }
                other => return Err(format!("symbol {name} is in special section {other:#x}")),
            }
            let binding = match symbol.st_bind() {
                elf::STB_LOCAL => Binding::Local,
                elf::STB_GLOBAL if shndx == elf::SHN_UNDEF => Binding::Reference,
                elf::STB_GLOBAL => Binding::Global,
                elf::STB_WEAK => Binding::Weak,
                other => return Err(format!("symbol {name} has binding {other}")),
            };
            match binding {
                Binding::Local if shndx == elf::SHN_UNDEF => return Err(format!("symbol {name} is local and undefined")),
                Binding::Local => {}
                // Undefined: named by a `.type` that adds no type, which
                // lists it in the symbol table as a reference does (a name
                // that only `.reloc` uses is not listed), and says nothing
                // that could clash with the part defining it (a weak, hidden
                // or common definition).
                Binding::Reference => {
                    if st_type == elf::STT_NOTYPE {
                        let _ = writeln!(out, "\t.type {name},@notype");
                    }
                }
                Binding::Global => {
                    let _ = writeln!(out, "\t.globl {name}");
                }
                Binding::Weak => {
                    let _ = writeln!(out, "\t.weak {name}");
                }
            }
            match shndx {
                elf::SHN_UNDEF => stated.references.push((name.clone(), binding)),
                _ => stated.defines.push((name.clone(), binding)),
            }
            let kind = match st_type {
                elf::STT_NOTYPE => None,
                elf::STT_OBJECT => Some("@object"),
                elf::STT_FUNC => Some("@function"),
                elf::STT_TLS => Some("@tls_object"),
                elf::STT_GNU_IFUNC => Some("@gnu_indirect_function"),
                elf::STT_COMMON if shndx == elf::SHN_COMMON => None,
                other => return Err(format!("symbol {name} has type {other}")),
            };
            if let Some(kind) = kind {
                let _ = writeln!(out, "\t.type {name},{kind}");
            }
            if size != 0 && shndx != elf::SHN_COMMON {
                let _ = writeln!(out, "\t.size {name}, {size}");
            }
            match symbol.st_visibility() {
                elf::STV_DEFAULT => {}
                elf::STV_INTERNAL => {
                    let _ = writeln!(out, "\t.internal {name}");
                }
                elf::STV_HIDDEN => {
                    let _ = writeln!(out, "\t.hidden {name}");
                }
                _ => {
                    let _ = writeln!(out, "\t.protected {name}");
                }
            }
        }
        Ok(())
    }

    /// `.comment`'s strings (the assembler writes them back with the
    /// leading NUL it puts before the first).
    fn identification_text(&self, index: usize, out: &mut String) -> Result<(), String> {
        let bytes = self.section_bytes(index)?;
        if bytes.first().is_some_and(|&b| b != 0) || bytes.last().is_some_and(|&b| b != 0) {
            return Err(".comment is not a list of strings".into());
        }
        for string in bytes.split(|&b| b == 0).filter(|s| !s.is_empty()) {
            if string.iter().any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\') {
                return Err(".comment holds a string the transcript does not quote".into());
            }
            let _ = writeln!(out, "\t.ident \"{}\"", String::from_utf8_lossy(string));
        }
        Ok(())
    }

    /// The address-significance table: ULEB128 symbol indexes.
    fn address_significance_text(&self, index: usize, out: &mut String) -> Result<(), String> {
        let mut bytes = self.section_bytes(index)?;
        while !bytes.is_empty() {
            let (symbol, used) = uleb128(bytes).ok_or(".llvm_addrsig is malformed")?;
            bytes = &bytes[used..];
            let symbol = usize::try_from(symbol).map_err(|_| ".llvm_addrsig is malformed")?;
            let entry = self.symbol(symbol)?;
            if entry.st_type() == elf::STT_SECTION {
                // A private global's address (`.addrsig_sym .L.str`) is its
                // section's: the chunk's label says the same.
                let section = entry.st_shndx(self.endian) as usize;
                if self.chunk(section).is_none_or(|plan| plan.shared.is_some()) {
                    return Err(format!(".llvm_addrsig names section {section}, which is not transcribed whole"));
                }
                let _ = writeln!(out, "\t.addrsig_sym {}", self.chunk_label(section));
                continue;
            }
            let _ = writeln!(out, "\t.addrsig_sym {}", self.symbol_name(symbol)?);
        }
        Ok(())
    }

    /// The plan of section `index` if the transcript emits its bytes.
    fn chunk(&self, index: usize) -> Option<&SectionPlan> {
        self.plans.get(index)?.as_ref().filter(|plan| plan.kind == SectionKind::Chunk)
    }

    fn section_bytes(&self, index: usize) -> Result<&'a [u8], String> {
        let header = self.sections.section(object::SectionIndex(index)).map_err(|e| format!("section {index}: {e}"))?;
        header.data(self.endian, self.data).map_err(|e| format!("section {index}: {e}"))
    }

    fn symbol(&self, index: usize) -> Result<&'a elf::Sym64<LittleEndian>, String> {
        self.symbols.symbol(object::SymbolIndex(index)).map_err(|e| format!("symbol {index}: {e}"))
    }

    fn symbol_name(&self, index: usize) -> Result<String, String> {
        let symbol = self.symbol(index)?;
        let name = self.symbols.symbol_name(self.endian, symbol).map_err(|e| format!("symbol {index}'s name: {e}"))?;
        asm_name(name)
    }

    fn chunk_label(&self, section: usize) -> String {
        format!(".Lmtpc.part{}.s{}", self.part, section)
    }

    /// Where offset `offset` of section `section` is, as an expression:
    /// past the chunk's label, or, in a prefix shared with the first part,
    /// past the first part's.
    fn position(&self, section: usize, offset: u64) -> String {
        match self.chunk(section).and_then(|plan| plan.shared.as_ref()) {
            Some(shared) if offset < shared.len => format!("{}+{offset}", shared.first_label),
            Some(shared) => format!("{}+{}", self.chunk_label(section), offset - shared.len),
            None => format!("{}+{offset}", self.chunk_label(section)),
        }
    }

    fn merge_label(&self, section: usize, offset: i64) -> String {
        format!(".Lmtpc.part{}.s{}.at{}", self.part, section, offset)
    }
}

/// The `.section` directive of a chunk.
fn section_directive(plan: &SectionPlan) -> Result<String, String> {
    let mut flags = section_flags(plan.flags & !(elf::SHF_GROUP as u64)).unwrap_or_default();
    if plan.group.is_some() {
        flags.push('G');
    }
    let mut line = format!("\t.section {},\"{flags}\",{}", asm_name(plan.name.as_bytes())?, section_type(plan.sh_type).unwrap_or_default());
    if plan.flags & elf::SHF_MERGE as u64 != 0 {
        let _ = write!(line, ",{}", plan.entsize);
    }
    if let Some(group) = &plan.group {
        let _ = write!(line, ",{group},comdat");
    }
    Ok(line)
}

/// The assembler's name of an ELF section type the transcript can state.
fn section_type(sh_type: u32) -> Option<&'static str> {
    Some(match sh_type {
        elf::SHT_PROGBITS => "@progbits",
        elf::SHT_NOBITS => "@nobits",
        elf::SHT_NOTE => "@note",
        elf::SHT_INIT_ARRAY => "@init_array",
        elf::SHT_FINI_ARRAY => "@fini_array",
        elf::SHT_PREINIT_ARRAY => "@preinit_array",
        elf::SHT_X86_64_UNWIND => "@unwind",
        _ => return None,
    })
}

/// The letters of section flags, if the transcript can state them all.
fn section_flags(flags: u64) -> Option<String> {
    let mut rest = flags;
    let mut letters = String::new();
    for (bit, letter) in SECTION_FLAG_LETTERS {
        if flags & bit != 0 {
            letters.push(letter);
            rest &= !bit;
        }
    }
    (rest == 0).then_some(letters)
}

/// A symbol or section name as the assembler reads it back: bare if it is
/// an identifier, else quoted; a name with a quote, a backslash or a byte
/// outside printable ASCII is not transcribed.
fn asm_name(name: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(name);
    if name.is_empty() || name.iter().any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\') {
        return Err(format!("the name {text:?} cannot be quoted"));
    }
    let bare = !name[0].is_ascii_digit() && name.iter().all(|&b| b.is_ascii_alphanumeric() || b"_.$".contains(&b));
    Ok(if bare { text.into_owned() } else { format!("\"{text}\"") })
}

/// How many bytes at the start of string section `mine` are whole strings
/// (each ending in its NUL) that `first` begins with too.
fn shared_strings_len(mine: &[u8], first: &[u8]) -> usize {
    let same = mine.iter().zip(first).take_while(|(a, b)| a == b).count();
    mine[..same].iter().rposition(|&b| b == 0).map_or(0, |last_nul| last_nul + 1)
}

/// `+N` or `-N`, nothing for zero.
fn signed(value: i64) -> String {
    match value {
        0 => String::new(),
        v if v > 0 => format!("+{v}"),
        v => format!("-{}", v.unsigned_abs()),
    }
}

/// An unsigned LEB128 number and the bytes it took.
fn uleb128(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &b) in bytes.iter().enumerate().take(10) {
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Comdat, Object, Relocation, StandardSection, Symbol, SymbolSection};
    use object::{Architecture, BinaryFormat, ComdatKind, Endianness, RelocationFlags, SectionKind, SymbolFlags, SymbolKind, SymbolScope};

    const PATH: &str = "/proc/self/fd/9";

    fn symbol(name: &str, kind: SymbolKind, scope: SymbolScope, section: SymbolSection, value: u64, size: u64) -> Symbol {
        Symbol { name: name.as_bytes().to_vec(), value, size, kind, scope, weak: false, section, flags: SymbolFlags::None }
    }

    fn reloc(offset: u64, symbol: object::write::SymbolId, addend: i64, r_type: u32) -> Relocation {
        Relocation { offset, symbol, addend, flags: RelocationFlags::Elf { r_type } }
    }

    /// The label the transcript puts at the start of the chunk of the
    /// section named `name`.
    fn chunk_label<'t>(text: &'t str, name: &str) -> &'t str {
        let mut lines = text.lines().skip_while(|l| !l.starts_with(&format!("\t.section {name},")));
        lines.find_map(|l| l.strip_suffix(':')).unwrap_or_else(|| panic!("no chunk for {name} in:\n{text}"))
    }

    fn has_line(text: &str, line: &str) -> bool {
        text.lines().any(|l| l == line)
    }

    /// A part's object as MC would write it: code calling an external
    /// function, a weak hidden and a local function, strings in a mergeable
    /// section that data points to through the section, zeroed data.
    fn part_object() -> Vec<u8> {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xe8, 0, 0, 0, 0, 0xc3, 0xc3, 0x90, 0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90], 16);
        let strings = obj.add_section(Vec::new(), b".rodata.str1.1".to_vec(), SectionKind::ReadOnlyString);
        obj.section_mut(strings).flags = object::SectionFlags::Elf { sh_flags: (elf::SHF_ALLOC | elf::SHF_MERGE | elf::SHF_STRINGS) as u64 };
        obj.append_section_data(strings, b"hi\0yo\0", 1);
        let data = obj.section_id(StandardSection::Data);
        obj.append_section_data(data, &[0; 16], 8);
        let bss = obj.section_id(StandardSection::UninitializedData);
        obj.append_section_bss(bss, 32, 8);
        let f = obj.add_symbol(symbol("f", SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 6));
        obj.add_symbol(symbol("g", SymbolKind::Text, SymbolScope::Compilation, SymbolSection::Section(text), 8, 1));
        let mut w = symbol("w", SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 6, 1);
        w.weak = true;
        w.flags = SymbolFlags::Elf { st_info: (elf::STB_WEAK << 4) | elf::STT_FUNC, st_other: elf::STV_HIDDEN };
        obj.add_symbol(w);
        obj.add_symbol(symbol("counter", SymbolKind::Data, SymbolScope::Compilation, SymbolSection::Section(bss), 8, 4));
        let ext = obj.add_symbol(symbol("ext", SymbolKind::Unknown, SymbolScope::Dynamic, SymbolSection::Undefined, 0, 0));
        obj.add_relocation(text, reloc(1, ext, -4, elf::R_X86_64_PLT32)).unwrap();
        let strings_start = obj.section_symbol(strings);
        obj.add_relocation(data, reloc(8, strings_start, 3, elf::R_X86_64_64)).unwrap();
        obj.add_relocation(data, reloc(0, f, 2, elf::R_X86_64_64)).unwrap();
        obj.write().unwrap()
    }

    #[test]
    fn a_part_object_becomes_its_sections_symbols_and_relocations() {
        let object = part_object();
        let text = transcribe(&object, PATH, 3, None).unwrap().text;
        // Each section: its directive, its alignment, a label, its bytes
        // read from the file (zeros for .bss), its relocations.
        assert!(has_line(&text, "\t.section .text,\"ax\",@progbits"), "{text}");
        assert!(has_line(&text, "\t.section .rodata.str1.1,\"aMS\",@progbits,1"), "{text}");
        assert!(has_line(&text, "\t.section .bss,\"aw\",@nobits"), "{text}");
        let code = chunk_label(&text, ".text");
        let strings = chunk_label(&text, ".rodata.str1.1");
        let data = chunk_label(&text, ".data");
        let bss = chunk_label(&text, ".bss");
        assert!(code.starts_with(".Lmtpc.part3.s"), "{code}");
        assert!(text.contains(&format!("\t.p2align 4\n{code}:\n\t.incbin \"{PATH}\", ")), "{text}");
        assert!(text.lines().any(|l| l.starts_with(&format!("\t.incbin \"{PATH}\", ")) && l.ends_with(", 16")), "{text}");
        assert!(text.contains(&format!("{bss}:\n\t.zero 32\n")), "{text}");
        // A call to an external function keeps its type and addend; the
        // name is listed by a `.type` that adds nothing, with no binding.
        assert!(has_line(&text, &format!("\t.reloc {code}+1, R_X86_64_PLT32, ext-4")), "{text}");
        assert!(has_line(&text, "\t.type ext,@notype"), "{text}");
        assert!(!has_line(&text, "\t.globl ext"), "{text}");
        // Through the mergeable section: a label at the string itself.
        let piece = format!("{strings}.at3");
        assert!(has_line(&text, &format!("\t.reloc {data}+8, R_X86_64_64, {piece}")), "{text}");
        assert!(has_line(&text, &format!("{piece} = {strings}+3")), "{text}");
        assert!(has_line(&text, &format!("\t.reloc {data}+0, R_X86_64_64, f+2")), "{text}");
        // Symbols: offsets in their chunks, binding, type, size, visibility.
        for line in [
            format!("f = {code}+0"),
            "\t.globl f".into(),
            "\t.type f,@function".into(),
            "\t.size f, 6".into(),
            format!("g = {code}+8"),
            format!("w = {code}+6"),
            "\t.weak w".into(),
            "\t.hidden w".into(),
            format!("counter = {bss}+8"),
            "\t.type counter,@object".into(),
        ] {
            assert!(has_line(&text, &line), "missing {line:?} in:\n{text}");
        }
        assert!(!has_line(&text, "\t.globl g") && !has_line(&text, "\t.globl counter"), "{text}");
        assert!(!has_line(&text, "\t.hidden f") && !has_line(&text, "\t.hidden ext"), "{text}");
    }

    #[test]
    fn a_comdat_member_names_its_group() {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let section = obj.add_section(Vec::new(), b".text._Z1fv".to_vec(), SectionKind::Text);
        obj.append_section_data(section, &[0xc3], 16);
        let f = obj.add_symbol(symbol("_Z1fv", SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(section), 0, 1));
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: f, sections: vec![section] });
        let text = transcribe(&obj.write().unwrap(), PATH, 0, None).unwrap().text;
        assert!(has_line(&text, "\t.section .text._Z1fv,\"axG\",@progbits,_Z1fv,comdat"), "{text}");
    }

    #[test]
    fn what_a_transcript_cannot_say_is_declined_by_name() {
        let with_section = |name: &str, kind: SectionKind| {
            let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
            let section = obj.add_section(Vec::new(), name.as_bytes().to_vec(), kind);
            obj.append_section_data(section, &[1, 2, 3, 4], 1);
            (obj, section)
        };
        // A linked-order section (a sanitizer's metadata).
        let (mut obj, section) = with_section("asan_globals", SectionKind::Data);
        obj.section_mut(section).flags = object::SectionFlags::Elf { sh_flags: (elf::SHF_ALLOC | elf::SHF_WRITE | elf::SHF_LINK_ORDER) as u64 };
        let e = transcribe(&obj.write().unwrap(), PATH, 0, None).unwrap_err();
        assert!(e.contains("section asan_globals has flags 0x83"), "{e}");
        // A relocation type the assembler's .reloc does not know.
        let (mut obj, section) = with_section(".data", SectionKind::Data);
        let ext = obj.add_symbol(symbol("ext", SymbolKind::Unknown, SymbolScope::Linkage, SymbolSection::Undefined, 0, 0));
        obj.add_relocation(section, reloc(0, ext, 0, 40)).unwrap();
        let e = transcribe(&obj.write().unwrap(), PATH, 0, None).unwrap_err();
        assert!(e.contains("relocation type 40 has no name"), "{e}");
        // A name the assembler would not read back.
        let (mut obj, section) = with_section(".data", SectionKind::Data);
        obj.add_symbol(symbol("a\"b", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(section), 0, 4));
        let e = transcribe(&obj.write().unwrap(), PATH, 0, None).unwrap_err();
        assert!(e.contains("cannot be quoted"), "{e}");
        assert!(transcribe(b"not an object", PATH, 0, None).unwrap_err().contains("cannot be read"));
        // A GOT reference to a local function: the part's assembler kept
        // the symbol for the GOT, which a transcript's host would not.
        let (mut obj, section) = with_section(".text", SectionKind::Text);
        let local = obj.add_symbol(symbol("helper", SymbolKind::Text, SymbolScope::Compilation, SymbolSection::Section(section), 1, 1));
        obj.add_relocation(section, reloc(0, local, -4, elf::R_X86_64_REX_GOTPCRELX)).unwrap();
        let e = transcribe(&obj.write().unwrap(), PATH, 0, None).unwrap_err();
        assert!(e.contains("local symbol helper (a GOT or PLT reference)"), "{e}");
        // Two sections of one name (unique ids): .section would merge them.
        let (mut obj, _) = with_section(".text.cold", SectionKind::Text);
        let second = obj.add_section(Vec::new(), b".text.cold".to_vec(), SectionKind::Text);
        obj.append_section_data(second, &[0xc3], 1);
        let e = transcribe(&obj.write().unwrap(), PATH, 0, None).unwrap_err();
        assert!(e.contains("two sections are named .text.cold"), "{e}");
    }

    #[test]
    fn shared_strings_are_whole_strings_from_the_start() {
        assert_eq!(shared_strings_len(b"pool\0a\0", b"pool\0b\0"), 5);
        // A string that only begins alike is not shared.
        assert_eq!(shared_strings_len(b"int\0long\0", b"int\0longer\0"), 4);
        assert_eq!(shared_strings_len(b"int\0", b"int\0long\0"), 4);
        assert_eq!(shared_strings_len(b"int\0", b"int"), 0);
        assert_eq!(shared_strings_len(b"a\0", b"b\0"), 0);
        assert_eq!(shared_strings_len(b"", b"a\0"), 0);
    }

    /// An object with `.debug_str` holding `strings`, and a debug section
    /// pointing at each string through `.debug_str` (as DWARF's string
    /// offsets do).
    fn object_with_debug_strings(strings: &[&str], group: bool) -> Vec<u8> {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let debug_str = obj.add_section(Vec::new(), b".debug_str".to_vec(), SectionKind::DebugString);
        obj.section_mut(debug_str).flags = object::SectionFlags::Elf { sh_flags: (elf::SHF_MERGE | elf::SHF_STRINGS) as u64 };
        let offsets = obj.add_section(Vec::new(), b".debug_str_offsets".to_vec(), SectionKind::Debug);
        let debug_str_symbol = obj.section_symbol(debug_str);
        for string in strings {
            let at = obj.append_section_data(debug_str, format!("{string}\0").as_bytes(), 1);
            let slot = obj.append_section_data(offsets, &[0; 4], 1);
            obj.add_relocation(offsets, reloc(slot, debug_str_symbol, at as i64, elf::R_X86_64_32)).unwrap();
        }
        if group {
            let text = obj.add_section(Vec::new(), b".text.k".to_vec(), SectionKind::Text);
            obj.append_section_data(text, &[0xc3], 1);
            let key = obj.add_symbol(symbol("k", SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 1));
            obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![text, debug_str] });
        }
        obj.write().unwrap()
    }

    #[test]
    fn a_later_part_names_the_debug_strings_it_shares_with_the_first_through_the_first() {
        let first = object_with_debug_strings(&["int", "char", "f"], false);
        let later = object_with_debug_strings(&["int", "char", "g", "unsigned"], false);
        let first_text = transcribe(&first, PATH, 0, None).unwrap().text;
        let text = transcribe(&later, PATH, 1, Some(&FirstPart::of(&first).unwrap())).unwrap().text;
        let (first_label, label) = (chunk_label(&first_text, ".debug_str"), chunk_label(&text, ".debug_str"));
        // Only the strings after the shared ones are read: "g\0unsigned\0",
        // from past "int\0char\0" in the object's `.debug_str`.
        let read = text.lines().skip_while(|l| *l != format!("{label}:")).nth(1).unwrap();
        let (offset, size) = read.rsplit_once(", ").map(|(head, size)| (head.rsplit_once(", ").unwrap().1, size)).unwrap();
        assert_eq!(size, "11", "{text}");
        let object = object::read::elf::ElfFile64::<LittleEndian>::parse(&*later).unwrap();
        use object::{Object as _, ObjectSection as _};
        let debug_str = object.section_by_name(".debug_str").unwrap();
        assert_eq!(offset.parse::<u64>().unwrap(), debug_str.file_range().unwrap().0 + 9, "{text}");
        // Shared strings are the first part's, the others this part's.
        let relocated: Vec<&str> = text.lines().filter(|l| l.starts_with("\t.reloc")).map(|l| l.rsplit(", ").next().unwrap()).collect();
        let defined = |l: &str| text.lines().find_map(|line| line.strip_prefix(&format!("{l} = "))).unwrap_or_else(|| panic!("{l}: {text}")).to_string();
        let targets: Vec<String> = relocated.iter().map(|l| defined(l)).collect();
        assert_eq!(targets, [format!("{first_label}+0"), format!("{first_label}+4"), format!("{label}+0"), format!("{label}+2")]);
        // The first part's own transcript reads the whole section.
        assert!(first_text.contains(&format!("{first_label}:\n\t.incbin \"{PATH}\", ")), "{first_text}");
        // Nothing shared: the whole section, named by this part's label.
        let other = object_with_debug_strings(&["long"], false);
        let text = transcribe(&other, PATH, 1, Some(&FirstPart::of(&first).unwrap())).unwrap().text;
        let label = chunk_label(&text, ".debug_str");
        assert!(text.lines().any(|l| l.ends_with(&format!(" = {label}+0"))) && !text.contains(&first_label), "{text}");
        // A section in a group is its group's: never shared.
        let grouped = object_with_debug_strings(&["int", "char", "g"], true);
        let text = transcribe(&grouped, PATH, 1, Some(&FirstPart::of(&first).unwrap())).unwrap().text;
        assert!(!text.contains(&first_label), "{text}");
    }

    /// What a part's transcript states, by hand: definitions and
    /// references with their bindings, sections with their attributes.
    fn stated(defines: &[(&str, Binding)], references: &[(&str, Binding)], sections: &[(&str, u64)]) -> Stated {
        let owned = |list: &[(&str, Binding)]| list.iter().map(|&(n, b)| (n.to_string(), b)).collect();
        let sections = sections.iter().map(|&(n, flags)| ((n.to_string(), None), (elf::SHT_PROGBITS, flags, 0))).collect();
        Stated { defines: owned(defines), references: owned(references), sections }
    }

    #[test]
    fn parts_that_clash_where_they_meet_are_found() {
        use Binding::*;
        let alloc = elf::SHF_ALLOC as u64;
        let caller = stated(&[("main", Global), ("helper", Local)], &[("f", Reference), ("w", Weak)], &[(".text", alloc | 4)]);
        let callee = stated(&[("f", Global), ("w", Weak), ("helper", Local)], &[], &[(".text", alloc | 4)]);
        // Each local name is renamed by the merge where two parts define
        // it: here two parts' `helper` is one name twice, a clash.
        let e = check_across_parts(&[&caller, &callee]).unwrap_err();
        assert!(e.contains("symbol helper is defined by parts 0 and 1"), "{e}");
        let callee = stated(&[("f", Global), ("w", Weak)], &[("main", Reference)], &[(".text", alloc | 4)]);
        assert_eq!(check_across_parts(&[&caller, &callee]), Ok(()));
        // `.weak w` then `.globl w`: the assembler's "changed binding".
        let global_w = stated(&[("w", Global)], &[], &[]);
        let e = check_across_parts(&[&caller, &global_w]).unwrap_err();
        assert!(e.contains("symbol w is .weak in part 0 and .globl in part 1"), "{e}");
        // A reference to another part's local would take it, silently.
        let names_helper = stated(&[], &[("helper", Reference)], &[]);
        for parts in [[&caller, &names_helper], [&names_helper, &caller]] {
            let e = check_across_parts(&parts).unwrap_err();
            assert!(e.contains("local symbol helper of part"), "{e}");
        }
        // A section two parts declare with other flags.
        let writable = stated(&[], &[], &[(".text", alloc | 1)]);
        let e = check_across_parts(&[&caller, &writable]).unwrap_err();
        assert!(e.contains("section .text is declared with type 0x1, flags 0x6, entry size 0 by part 0 and type 0x1, flags 0x3"), "{e}");
    }

    #[test]
    fn a_part_object_states_what_it_defines_names_and_declares() {
        let transcript = transcribe(&part_object(), PATH, 3, None).unwrap();
        let names = |list: &[(String, Binding)]| list.iter().map(|(n, b)| format!("{n}:{b:?}")).collect::<BTreeSet<_>>();
        let defines = names(&transcript.stated.defines);
        assert_eq!(defines, ["counter:Local", "f:Global", "g:Local", "w:Weak"].map(String::from).into(), "{transcript:?}");
        assert_eq!(names(&transcript.stated.references), ["ext:Reference".to_string()].into());
        let text = transcript.stated.sections.iter().find(|((name, _), _)| name == ".rodata.str1.1").unwrap();
        assert_eq!(text.1, (elf::SHT_PROGBITS, (elf::SHF_ALLOC | elf::SHF_MERGE | elf::SHF_STRINGS) as u64, 1));
    }

    #[test]
    fn the_first_parts_shared_strings_stand_in_for_it() {
        // The section as the first part's transcript declares it, its
        // chunk's label, as many bytes.
        let object = object_with_debug_strings(&["int", "char"], false);
        let first_text = transcribe(&object, PATH, 0, None).unwrap().text;
        let directive = first_text.lines().find(|l| l.starts_with("\t.section .debug_str,")).unwrap();
        let label = chunk_label(&first_text, ".debug_str");
        let stand_in = FirstPart::of(&object).unwrap().stand_in();
        assert_eq!(stand_in, format!("{directive}\n{label}:\n\t.zero 9\n"));
    }

    #[test]
    fn assignments_in_inline_asm_are_found() {
        let plain = b"\t.text\nf:\n\t.set\talias, f\n#APP\n\tnop\n#NO_APP\n\tretq\n";
        assert!(!has_inline_asm_assignment(plain), "an alias the code generator printed is in the part's symbol table");
        assert!(has_inline_asm_assignment(b"f:\n#APP\n\t.set alias, elsewhere\n#NO_APP\n"));
        assert!(has_inline_asm_assignment(b"f:\n\t#APP\n\talias = elsewhere + 4\n\t#NO_APP\n"));
        assert!(has_inline_asm_assignment(b"#APP\n\t.symver foo, foo@V1\n#NO_APP\n"));
        assert!(!has_inline_asm_assignment(b"#APP\n\t.settings_are_not_set\n#NO_APP\n"));
        // Module-level asm defining a function by a label is transcribed;
        // one aliasing another symbol is not.
        assert!(!module_asm_assigns_a_symbol(".text\n.globl asm_entry\nasm_entry:\n\tjmp asm_helper\n"));
        assert!(module_asm_assigns_a_symbol(".globl alias\n.set alias, target\n"));
        assert!(module_asm_assigns_a_symbol(".globl a; .set a, b"));
        assert!(module_asm_assigns_a_symbol("l: .SET a, b"));
        assert!(module_asm_assigns_a_symbol(".macro m x,y\n.equ \\x,\\y\n.endm"));
        assert!(module_asm_assigns_a_symbol(".include \"defs.s\""));
        assert!(module_asm_assigns_a_symbol("a = b + 4"));
        assert!(!module_asm_assigns_a_symbol(".settings:\n\tret\n"));
    }

    #[test]
    fn names_are_bare_identifiers_or_quoted() {
        assert_eq!(asm_name(b"sqlite3Malloc.mtpc.bfe71196daa6ccba").unwrap(), "sqlite3Malloc.mtpc.bfe71196daa6ccba");
        assert_eq!(asm_name(b".L.str.5").unwrap(), ".L.str.5");
        assert_eq!(asm_name(b"foo@GLIBC_2.2.5").unwrap(), "\"foo@GLIBC_2.2.5\"");
        assert_eq!(asm_name(b"1st").unwrap(), "\"1st\"");
        assert!(asm_name(b"").is_err() && asm_name(b"a\\b").is_err() && asm_name(b"a\nb").is_err());
        assert_eq!((signed(0), signed(5), signed(-4)), (String::new(), "+5".into(), "-4".into()));
        assert_eq!(uleb128(&[0xe5, 0x8e, 0x26, 7]), Some((624_485, 3)));
        assert_eq!(uleb128(&[0x80]), None);
    }
}
