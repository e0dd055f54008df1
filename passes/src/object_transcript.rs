//! Transcribes a part's object into directives the host assembles without
//! parsing one instruction: clang (16, 19 and 22) is handed these instead of a
//! text whose every instruction it would parse, serially.
//!
//! A part's object (ELF64 x86-64, relocatable, as LLVM's MC layer writes
//! it) becomes: each section's bytes, written out if the section is small
//! (`.ascii`), else read with `.incbin` from a file that holds the object,
//! starting at a multiple of the section's alignment (so nothing inside
//! moves); each symbol assigned its offset in its section;
//! each relocation a `.reloc` with its own type (but a call, or any
//! PC-relative word, to a promoted local made local again in the same
//! section: the distance to it, `.long NAME-4-.`, which the host's
//! assembler resolves as stock's resolves the call); the address-significance
//! table as `.addrsig_sym` lines, the call graph profile as `.cg_profile`.
//! What a transcript cannot state the same way is declined, named (see
//! [`section_type`], [`section_flags`], and the `Err`s below): foreseen
//! before the partitions are compiled (`object_writer::part_output`), the
//! partitions then print text; found only in a part's object, the module
//! is compiled whole.
//!
//! What the parts say alike is decided before (`object_merge`): a part's
//! transcript leaves out the copies another part's stand for, renames the
//! locals another part defines too, names the promoted locals that one
//! part defines as the locals they are in stock's object, and names its
//! debug strings in the pool that holds every part's once. Debug information is otherwise
//! transcribed as any other section: each part's object has its own compile
//! units, each with the line table its part's assembler wrote.

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use object::elf;
use object::read::elf::{SectionHeader as _, Sym as _};

use crate::elf_object::{ElfObject, Relocation, SHT_LLVM_ADDRSIG, SHT_LLVM_CALL_GRAPH_PROFILE};
use crate::object_merge::{PartDecisions, Pools};


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


/// x86-64's large sections (`SHF_X86_64_LARGE`: `.ltext`, `.ldata`,
/// `.lrodata`, `.lbss`), which code generators from LLVM 18 on write for
/// `-mcmodel=large` and for data above `-mlarge-data-threshold` with
/// `-mcmodel=medium`; the assemblers that read their letter (`l`) are as new.
const SHF_X86_64_LARGE: u64 = 0x1000_0000;

/// The section flags a transcript can state, with the letter of each in a
/// `.section` directive (and `G`, a group member, said by the group).
const SECTION_FLAG_LETTERS: [(u64, char); 9] = [
    (elf::SHF_ALLOC as u64, 'a'),
    (elf::SHF_WRITE as u64, 'w'),
    (elf::SHF_EXECINSTR as u64, 'x'),
    (elf::SHF_MERGE as u64, 'M'),
    (elf::SHF_STRINGS as u64, 'S'),
    (elf::SHF_TLS as u64, 'T'),
    (elf::SHF_EXCLUDE as u64, 'e'),
    (elf::SHF_GNU_RETAIN as u64, 'R'),
    (SHF_X86_64_LARGE, 'l'),
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
    /// A promoted local local again (`object_merge`): defined, local, by
    /// one part, and named by the others with nothing stated.
    Demoted,
}

impl Binding {
    /// How a transcript states it.
    fn directive(self) -> &'static str {
        match self {
            Binding::Global => ".globl",
            Binding::Weak => ".weak",
            Binding::Local => "local",
            Binding::Reference => "a reference",
            Binding::Demoted => "a promoted local made local again",
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
    /// The undefined symbols it names: `Weak`, `Reference` or `Demoted`.
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
/// a promoted local made local again that a part states otherwise, or that
/// no part defines (a reference would be a global of its name); a section
/// two parts declare with other type, flags or entry size (the
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
        /// A part that states it a promoted local made local again, and
        /// one that states it otherwise.
        demoted: Option<usize>,
        not_demoted: Option<usize>,
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
            match binding {
                Binding::Demoted => seen.demoted.get_or_insert(k),
                _ => seen.not_demoted.get_or_insert(k),
            };
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
    // A promoted local made local again is so in every part, and defined:
    // else a part's reference would be a global of that name.
    let mut names: Vec<(&str, Seen)> = names.into_iter().collect();
    names.sort_by_key(|&(name, _)| name);
    for (name, seen) in &names {
        match (seen.demoted, seen.not_demoted, seen.defined) {
            (None, _, _) | (Some(_), None, Some((_, Binding::Demoted))) => {}
            (Some(k), Some(other), _) => {
                return Err(format!("symbol {name} is a promoted local made local again in part {k}, not in part {other}"));
            }
            (Some(k), None, _) => return Err(format!("promoted local {name}, made local again, is named by part {k} and defined by none")),
        }
    }
    Ok(())
}

/// The transcript of part `part`'s object `object`, whose bytes the host
/// reads from the file at `path` (the same bytes), with what the merge
/// decided of it. `Err` says what it cannot transcribe.
pub fn transcribe(object: &[u8], path: &str, part: usize, decisions: &PartDecisions) -> Result<Transcript, String> {
    let mut transcriber = Transcriber::new(object, path, part, decisions)?;
    transcriber.plan_sections()?;
    transcriber.run()
}

/// A section of at most this many bytes is written into the transcript
/// (`.ascii`), a larger one read from the file (`.incbin`). LLVM 16's
/// assembler maps the whole file anew for each `.incbin`, about 16 µs a
/// section (`llvm-mc-16`, 2,533 sections of 100 bytes: 70 ms read from a
/// file, 30 ms written out), while written out a byte costs about 8 ns
/// (random bytes, 3 characters each on average). Most sections are small:
/// DuckDB's common file at 16 partitions has 2,533, 2,380 of them of at
/// most 1 KiB. The host's assembly of its transcript took 153 ms with
/// every section read from the file and 102 ms with this limit; limits of
/// 256 bytes and 4 KiB were not faster (122 and 119 ms; medians of 3
/// alternating rounds, within this machine's noise of each other).
const INLINE_BYTES_MAX: u64 = 1024;

/// Appends `.ascii` with `bytes`: printable ASCII as itself, except `"`
/// and `\`, which are escaped with a backslash; every other byte as a
/// three-digit octal escape, which the assembler reads as that byte
/// whatever follows it.
fn write_ascii(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len() * 4 + 11);
    out.push_str("\t.ascii \"");
    for &byte in bytes {
        match byte {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(byte as char);
            }
            0x20..=0x7e => out.push(byte as char),
            _ => {
                out.push('\\');
                for shift in [6, 3, 0] {
                    out.push((b'0' + ((byte >> shift) & 7)) as char);
                }
            }
        }
    }
    out.push_str("\"\n");
}

/// A relocation that a data directive states (see [`data_words`]).
#[derive(Debug, PartialEq)]
struct DataWord {
    /// Where it is in its section, and its bytes (4 or 8).
    offset: usize,
    width: usize,
    relocation: Relocation,
}

/// Bytes outside the words a section written as data may hold, per word
/// (besides [`INLINE_BYTES_MAX`] in all): they are written out, about
/// 8 ns a byte, where a `.reloc` line costs the assembler about 5,000
/// instructions more than the word's `.long` or `.quad`.
const DATA_BYTES_PER_WORD: usize = 64;

/// A section's relocations as data directives, if each is a plain word:
/// `.long X` and `.quad X` are the assembler's `R_X86_64_32` and
/// `R_X86_64_64` against what X names, at the word's place, with the
/// addend in the relocation and zeros in the bytes, as the part's
/// assembler wrote them. Debug information is mostly such words
/// (`.debug_str_offsets`, `.debug_addr`), and so are tables of addresses:
/// said so, the host reads a word where it would read a `.reloc` line,
/// and no offset (DuckDB's `ub_src_execution.cpp` with `-g` at 2
/// partitions: 45,596 of the transcript's 63,200 relocations; assembled
/// by `llvm-mc-16`, 1.20 G instructions as `.reloc` lines, 0.96 G as
/// words, the same object). `None` unless every relocation is such a word
/// against a plain target (`plain_target`), in place order (the
/// assembler writes a section's relocations in the order of its words),
/// and the rest of the section is short enough to write out.
fn data_words(bytes: &[u8], relocations: &[Relocation], plain_target: impl Fn(usize) -> bool) -> Option<Vec<DataWord>> {
    if relocations.is_empty() {
        return None;
    }
    let mut words = Vec::with_capacity(relocations.len());
    let mut end = 0;
    for r in relocations {
        let width = match r.r_type {
            elf::R_X86_64_32 => 4,
            elf::R_X86_64_64 => 8,
            _ => return None,
        };
        let offset = usize::try_from(r.offset).ok()?;
        let word = bytes.get(offset..offset.checked_add(width)?)?;
        if offset < end || word.iter().any(|&b| b != 0) || !plain_target(r.symbol) {
            return None;
        }
        end = offset + width;
        words.push(DataWord { offset, width, relocation: *r });
    }
    let written_out = bytes.len() - words.iter().map(|w| w.width).sum::<usize>();
    (written_out <= INLINE_BYTES_MAX as usize + DATA_BYTES_PER_WORD * words.len()).then_some(words)
}

/// The bytes between the words a section's calls to a local made local
/// again become (see `Transcriber::resolved_by_the_host`) are written out
/// up to this many, else read from the file: a section read from the file
/// whole is read in at most one piece more per this many bytes, a bound
/// the count of files read (below) can afford, and what is written out
/// costs the assembler about 8 ns a byte (sqlite3's code at 2
/// partitions, 5,700 such calls: 4.3 MB of transcript, 1.8 MB before).
const PIECE_INLINE_MAX: u64 = 4 * INLINE_BYTES_MAX;

/// At most this many `.incbin` lines in the host's text: LLVM 16's
/// assembler maps the file anew for each, and keeps every mapping until it
/// is done; Linux allows a process 65,530 (`vm.max_map_count`), and the
/// compiler's own mappings need some. Only sections over
/// `INLINE_BYTES_MAX` (1 KiB) are read so (DuckDB's common file at 16 partitions:
/// 153 of its 2,533 sections); `object_writer` foresees the count from all
/// sections, so it errs on the side of printing text.
pub const MAX_FILES_READ: usize = 32_768;

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
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SectionKind {
    /// Bytes (or zeros), emitted as a chunk with a label at its start.
    Chunk,
    /// `.comment`: its strings become `.ident` directives.
    Identification,
    /// The address-significance table: `.addrsig_sym` lines.
    AddressSignificance,
    /// The call graph profile: `.cg_profile` lines.
    CallGraphProfile,
    /// Read for what it says of others (symbols, strings, relocations,
    /// groups), or what the host writes for the module itself (the CET
    /// property note).
    Bookkeeping,
    /// A debug string section whose strings are in a pool (`object_merge`).
    Pooled,
    /// A section another part's copy stands for (`object_merge`).
    Dropped,
}

struct Transcriber<'a> {
    elf: ElfObject<'a>,
    path: String,
    part: usize,
    decisions: &'a PartDecisions,
    plans: Vec<Option<SectionPlan>>,
}

impl<'a> Transcriber<'a> {
    fn new(data: &'a [u8], path: &str, part: usize, decisions: &'a PartDecisions) -> Result<Self, String> {
        Ok(Transcriber { elf: ElfObject::parse(data)?, path: path.to_string(), part, decisions, plans: Vec::new() })
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
            // (4 for .text), not its content's: no padding for it, unless
            // a symbol there has it (`int m[0] __attribute__((aligned(64)))`).
            if plan.align > 1 && (plan.size > 0 || self.defines_a_symbol_in(index)?) {
                let _ = writeln!(out, "\t.p2align {}", plan.align.trailing_zeros());
            }
            let _ = writeln!(out, "{}:", self.chunk_label(index));
            let relocations = relocations.get(&index).map(Vec::as_slice).unwrap_or(&[]);
            if let Some(r) = relocations.iter().find(|r| r.offset >= plan.size) {
                return Err(format!("a relocation of {} at {} is past its end", plan.name, r.offset));
            }
            if plan.size > 0 && plan.sh_type != elf::SHT_NOBITS {
                let bytes = self.elf.section_bytes(index)?;
                if let Some(words) = data_words(bytes, relocations, |symbol| self.plain_data_target(symbol)) {
                    self.data_text(bytes, &words, &mut merge_labels, &mut out)?;
                    continue;
                }
            }
            // Calls to a local made local again in this section: the
            // host's assembler resolves them, as stock's does.
            let bytes = match plan.sh_type {
                elf::SHT_NOBITS => &[][..],
                _ => self.elf.section_bytes(index)?,
            };
            let (mut resolved, relocations): (Vec<&Relocation>, Vec<&Relocation>) =
                relocations.iter().partition(|r| self.resolved_by_the_host(r, plan, bytes));
            resolved.sort_by_key(|r| r.offset);
            if plan.size > 0 {
                if plan.sh_type == elf::SHT_NOBITS {
                    let _ = writeln!(out, "\t.zero {}", Num(plan.size));
                } else {
                    let inline_max = if resolved.is_empty() { INLINE_BYTES_MAX } else { PIECE_INLINE_MAX };
                    let mut at = 0;
                    for r in resolved {
                        // `S + A - P`, as a PC-relative relocation reads.
                        let offset = r.offset as usize;
                        if offset < at {
                            return Err(format!("relocations of {} overlap at {offset}", plan.name));
                        }
                        files_read += self.write_bytes(plan, &bytes[at..offset], at, inline_max, &mut out);
                        let target = self.target(r.symbol, r.addend, r.r_type, &mut merge_labels)?;
                        let _ = writeln!(out, "\t.long {target}-.");
                        at = offset + 4;
                    }
                    files_read += self.write_bytes(plan, &bytes[at..], at, inline_max, &mut out);
                }
            }
            // The relocations of this section, while it is the current one
            // (`.reloc` adds to the fragment its offset's label is in).
            for &&Relocation { offset, r_type, symbol, addend } in &relocations {
                let name = X86_64_RELOCATIONS
                    .iter()
                    .find(|(number, _)| *number == r_type)
                    .map(|(_, name)| *name)
                    .ok_or_else(|| format!("relocation type {r_type} has no name for .reloc"))?;
                let target = self.target(symbol, addend, r_type, &mut merge_labels)?;
                let _ = writeln!(out, "\t.reloc {}+{}, {}, {}", self.chunk_label(index), Num(offset), name, target);
            }
        }
        for &(section, offset) in &merge_labels {
            let _ = writeln!(out, "{} = {}", self.merge_label(section, offset), self.position(section, offset as u64)?);
        }
        self.symbols_text(&mut out, &mut stated)?;
        let mut address_significance = String::new();
        for (index, plan) in self.plans.iter().enumerate() {
            match plan.as_ref().map(|p| p.kind) {
                Some(SectionKind::Identification) => self.identification_text(index, &mut out)?,
                Some(SectionKind::AddressSignificance) => self.address_significance_text(index, &mut address_significance)?,
                Some(SectionKind::CallGraphProfile) => self.call_graph_profile_text(index, &mut out)?,
                _ => {}
            }
        }
        Ok(Transcript { text: out, address_significance, files_read, stated })
    }

    /// Writes `bytes`, of section `plan` from offset `at` on: as characters
    /// if at most `inline_max`, else read from the file. Returns how many
    /// `.incbin` lines it wrote.
    fn write_bytes(&self, plan: &SectionPlan, bytes: &[u8], at: usize, inline_max: u64, out: &mut String) -> usize {
        if bytes.is_empty() {
            0
        } else if bytes.len() as u64 <= inline_max {
            write_ascii(out, bytes);
            0
        } else {
            let _ = writeln!(out, "\t.incbin \"{}\", {}, {}", self.path, Num(plan.offset + at as u64), Num(bytes.len() as u64));
            1
        }
    }

    /// Whether relocation `r` of section `plan` is a call (or any other
    /// PC-relative word) to a promoted local made local again in the
    /// section of the host's text that `plan` is part of: the host's
    /// assembler resolves it, as it resolves a call to a local of the same
    /// section in stock's compile, where a `.reloc` line would keep a
    /// relocation. Its bytes (of the section's, `bytes`) are the zeros the
    /// part's assembler wrote (the addend is the relocation's).
    fn resolved_by_the_host(&self, r: &Relocation, plan: &SectionPlan, bytes: &[u8]) -> bool {
        if self.decisions.demoted_sections.is_empty() || !matches!(r.r_type, elf::R_X86_64_PC32 | elf::R_X86_64_PLT32) || plan.group.is_some() {
            return false;
        }
        let Ok(symbol) = self.elf.symbol(r.symbol) else { return false };
        if symbol.st_bind() == elf::STB_LOCAL || symbol.st_type() == elf::STT_SECTION {
            return false;
        }
        let Ok(name) = self.elf.symbol_name(r.symbol) else { return false };
        let in_section = self.decisions.demoted_sections.get(String::from_utf8_lossy(name).as_ref()).is_some_and(|s| *s == plan.name);
        let field = usize::try_from(r.offset).ok().and_then(|at| bytes.get(at..at.checked_add(4)?));
        in_section && field == Some(&[0u8; 4][..])
    }

    /// A section written as data (see [`data_words`]): its bytes between
    /// the words written out, each word `.long` or `.quad` its target.
    fn data_text(&self, bytes: &[u8], words: &[DataWord], merge_labels: &mut BTreeSet<(usize, i64)>, out: &mut String) -> Result<(), String> {
        let mut at = 0;
        for word in words {
            if word.offset > at {
                write_ascii(out, &bytes[at..word.offset]);
            }
            let target = self.target(word.relocation.symbol, word.relocation.addend, word.relocation.r_type, merge_labels)?;
            let directive = if word.width == 8 { ".quad" } else { ".long" };
            let _ = writeln!(out, "\t{directive} {target}");
            at = word.offset + word.width;
        }
        if at < bytes.len() {
            write_ascii(out, &bytes[at..]);
        }
        Ok(())
    }

    /// Whether a relocation against symbol `index` reads the same as a
    /// data directive naming it: the assembler keeps a relocation for a
    /// word that names a symbol in a section or an undefined one, but
    /// folds one that names an absolute symbol into its value, and a
    /// thread-local or indirect function is not plain data.
    fn plain_data_target(&self, index: usize) -> bool {
        let Ok(symbol) = self.elf.symbol(index) else { return false };
        let shndx = symbol.st_shndx(self.elf.endian);
        let in_section_or_undefined = shndx == elf::SHN_UNDEF || shndx < elf::SHN_LORESERVE;
        in_section_or_undefined && matches!(symbol.st_type(), elf::STT_NOTYPE | elf::STT_OBJECT | elf::STT_FUNC | elf::STT_SECTION)
    }

    /// Whether a symbol (not a section's or the file's) is defined in
    /// section `section` (asked of empty sections only).
    fn defines_a_symbol_in(&self, section: usize) -> Result<bool, String> {
        for index in 1..self.elf.symbols.len() {
            let symbol = self.elf.symbol(index)?;
            if !matches!(symbol.st_type(), elf::STT_SECTION | elf::STT_FILE) && self.elf.defined_in(symbol) == Some(section) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// What each section is for the transcript; declines a section it
    /// cannot state.
    fn plan_sections(&mut self) -> Result<(), String> {
        let endian = self.elf.endian;
        let mut groups: HashMap<usize, String> = HashMap::new();
        for group in self.elf.groups()? {
            // By the name the host's text gives it (a local is renamed).
            let signature = self.symbol_name(group.signature).map_err(|e| format!("a group's signature: {e}"))?;
            for member in group.members {
                groups.insert(member, signature.clone());
            }
        }
        let mut plans = Vec::with_capacity(self.elf.sections.len());
        for (index, header) in self.elf.sections.iter().enumerate() {
            if index == 0 {
                plans.push(None);
                continue;
            }
            let mut name = self.elf.section_name(header)?;
            // Named after a promoted local made local again: after its
            // stock name (`object_merge`).
            if let Some(renamed) = self.decisions.renamed_sections.get(&name) {
                name = renamed.clone();
            }
            let sh_type = header.sh_type(endian);
            let flags = header.sh_flags(endian);
            let kind = match sh_type {
                elf::SHT_SYMTAB | elf::SHT_STRTAB | elf::SHT_RELA | elf::SHT_REL | elf::SHT_GROUP => SectionKind::Bookkeeping,
                SHT_LLVM_ADDRSIG => SectionKind::AddressSignificance,
                SHT_LLVM_CALL_GRAPH_PROFILE => SectionKind::CallGraphProfile,
                _ if name == ".comment" => SectionKind::Identification,
                // The host writes the module's own (the code generator's,
                // from the module's flags: a part's is the same).
                elf::SHT_NOTE if name == ".note.gnu.property" => match is_the_feature_note(self.elf.section_bytes(index)?) {
                    true => SectionKind::Bookkeeping,
                    false => return Err(format!("{name} holds more than the x86 feature note the host writes")),
                },
                _ if self.decisions.dropped_sections.contains(&index) => SectionKind::Dropped,
                _ if self.decisions.pooled.contains_key(&index) => SectionKind::Pooled,
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

    /// Each chunk section's relocations.
    fn relocations_by_section(&self) -> Result<HashMap<usize, Vec<Relocation>>, String> {
        let endian = self.elf.endian;
        let mut by_section: HashMap<usize, Vec<Relocation>> = HashMap::new();
        for header in self.elf.sections.iter().filter(|h| matches!(h.sh_type(endian), elf::SHT_RELA | elf::SHT_REL)) {
            let target = header.sh_info(endian) as usize;
            // Those of a dropped copy go with it; the call graph profile's
            // name its edges (`call_graph_profile_text`).
            if matches!(self.kind(target), Some(SectionKind::Dropped | SectionKind::CallGraphProfile)) {
                continue;
            }
            if header.sh_type(endian) == elf::SHT_REL {
                return Err("the object has implicit-addend relocations".into());
            }
            if self.chunk(target).is_none() {
                return Err(format!("relocations apply to section {target}, which is not transcribed"));
            }
            by_section.entry(target).or_default().extend(self.elf.relocations(header)?);
        }
        Ok(by_section)
    }

    /// The expression a relocation of type `r_type` against symbol `index`
    /// plus `addend` becomes.
    fn target(&self, index: usize, addend: i64, r_type: u32, merge_labels: &mut BTreeSet<(usize, i64)>) -> Result<String, String> {
        if index == 0 {
            return Err("a relocation has no symbol".into());
        }
        let symbol = self.elf.symbol(index)?;
        if symbol.st_type() == elf::STT_SECTION {
            let section = symbol.st_shndx(self.elf.endian) as usize;
            if self.kind(section) == Some(SectionKind::Pooled) {
                // A string in the pool, as in a mergeable section.
                let offset = u64::try_from(addend).map_err(|_| format!("a relocation points before the start of section {section}"))?;
                return self.pooled_string(section, offset);
            }
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
        let defined_in = self.elf.defined_in(symbol).and_then(|section| self.kind(section).map(|kind| (section, kind)));
        match defined_in {
            Some((_, SectionKind::Dropped)) if symbol.st_bind() == elf::STB_LOCAL => {
                return Err(format!("a relocation names local symbol {name} of a copy another part's stands for"));
            }
            // A string in the pool, named by a symbol of the part's: where
            // the pool has the string `value + addend` points into.
            Some((section, SectionKind::Pooled)) => {
                let offset = (symbol.st_value(self.elf.endian) as i64)
                    .checked_add(addend)
                    .and_then(|offset| u64::try_from(offset).ok())
                    .ok_or_else(|| format!("a relocation points before the start of section {section}"))?;
                return self.pooled_string(section, offset);
            }
            _ => {}
        }
        if symbol.st_bind() == elf::STB_LOCAL && !self.local_kept_in_relocations(symbol, addend) {
            // The part's assembler kept a local symbol because the reference
            // was through the GOT or the PLT (`f@PLT - .` in a relative
            // table, `f@GOTPCREL(%rip)`): said so again, the host's keeps it
            // too, where it would otherwise relocate through the section.
            let modifier = got_or_plt_modifier(r_type)
                .ok_or_else(|| format!("a relocation of type {r_type} names local symbol {name}"))?;
            return Ok(format!("{name}{modifier}{}", signed(addend)));
        }
        Ok(format!("{name}{}", signed(addend)))
    }

    /// Whether the assembler keeps a relocation's local symbol (rather than
    /// its section plus an offset) for what the symbol is: thread-local, an
    /// indirect function, or a piece of a mergeable section pointed into
    /// (LLVM's `ELFObjectWriter::shouldRelocateWithSymbol`). Only those
    /// reasons reach the host through a transcript.
    fn local_kept_in_relocations(&self, symbol: &crate::elf_object::Symbol, addend: i64) -> bool {
        let flags = match self.plans.get(symbol.st_shndx(self.elf.endian) as usize) {
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
        let endian = self.elf.endian;
        for index in 1..self.elf.symbols.len() {
            let symbol = self.elf.symbol(index)?;
            let st_type = symbol.st_type();
            if st_type == elf::STT_SECTION || st_type == elf::STT_FILE {
                continue;
            }
            let (name, demoted) = self.host_name(index)?;
            if symbol.st_other & !3 != 0 {
                return Err(format!("symbol {name} has other bits {:#x}", symbol.st_other));
            }
            let mut shndx = symbol.st_shndx(endian);
            if self.elf.names_its_group(symbol) {
                continue;
            }
            let in_dropped = shndx != elf::SHN_UNDEF && self.kind(shndx as usize) == Some(SectionKind::Dropped);
            if symbol.st_bind() != elf::STB_LOCAL && shndx != elf::SHN_UNDEF && (in_dropped || self.defined_elsewhere(index)?) {
                // Another part's definition stands for this one: a reference.
                shndx = elf::SHN_UNDEF;
            } else if in_dropped {
                // Gone with its copy (nothing kept names it: see `target`).
                continue;
            }
            if demoted && shndx == elf::SHN_UNDEF {
                // The part that defines it makes it local to the whole text.
                stated.references.push((name, Binding::Demoted));
                continue;
            }
            let value = symbol.st_value(endian);
            let size = if shndx == elf::SHN_UNDEF { 0 } else { symbol.st_size(endian) };
            match shndx {
                elf::SHN_UNDEF => {}
                elf::SHN_ABS => {
                    let _ = writeln!(out, "{name} = {}", Num(value));
                }
                elf::SHN_COMMON => {
                    let _ = writeln!(out, "\t.comm {name}, {}, {}", Num(size), Num(value));
                }
                section if section < elf::SHN_LORESERVE => {
                    let section = section as usize;
                    let pooled = self.kind(section) == Some(SectionKind::Pooled);
                    if !pooled && self.chunk(section).is_none_or(|plan| value > plan.size) {
                        return Err(format!("symbol {name} is defined where the transcript has no bytes"));
                    }
                    let _ = writeln!(out, "{name} = {}", self.position(section, value)?);
                }
                other => return Err(format!("symbol {name} is in special section {other:#x}")),
            }
            let binding = match symbol.st_bind() {
                _ if demoted => Binding::Demoted,
                elf::STB_LOCAL => Binding::Local,
                elf::STB_GLOBAL if shndx == elf::SHN_UNDEF => Binding::Reference,
                elf::STB_GLOBAL => Binding::Global,
                elf::STB_WEAK => Binding::Weak,
                other => return Err(format!("symbol {name} has binding {other}")),
            };
            match binding {
                Binding::Local | Binding::Demoted if shndx == elf::SHN_UNDEF => return Err(format!("symbol {name} is local and undefined")),
                Binding::Local | Binding::Demoted => {}
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
                let _ = writeln!(out, "\t.size {name}, {}", Num(size));
            }
            match symbol.st_visibility() {
                // Local, as in stock's object (promoted, it was hidden).
                _ if demoted => {}
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
        let bytes = self.elf.section_bytes(index)?;
        if bytes.first().is_some_and(|&b| b != 0) || bytes.last().is_some_and(|&b| b != 0) {
            return Err(".comment is not a list of strings".into());
        }
        for string in bytes.split(|&b| b == 0).filter(|s| !s.is_empty()) {
            if string.iter().any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\') {
                return Err(".comment holds a string the transcript does not quote".into());
            }
            // Stated once, by the first part that holds it (`object_merge`).
            let string = String::from_utf8_lossy(string);
            if !self.decisions.idents_stated_before.contains(string.as_ref()) {
                let _ = writeln!(out, "\t.ident \"{string}\"");
            }
        }
        Ok(())
    }

    /// The address-significance table: ULEB128 symbol indexes.
    fn address_significance_text(&self, index: usize, out: &mut String) -> Result<(), String> {
        let mut bytes = self.elf.section_bytes(index)?;
        while !bytes.is_empty() {
            let (symbol, used) = uleb128(bytes).ok_or(".llvm_addrsig is malformed")?;
            bytes = &bytes[used..];
            let symbol = usize::try_from(symbol).map_err(|_| ".llvm_addrsig is malformed")?;
            let entry = self.elf.symbol(symbol)?;
            let section = entry.st_shndx(self.elf.endian) as usize;
            let dropped = self.elf.defined_in(entry).is_some_and(|s| self.kind(s) == Some(SectionKind::Dropped));
            if entry.st_type() == elf::STT_SECTION {
                if dropped {
                    continue;
                }
                // A private global's address (`.addrsig_sym .L.str`) is its
                // section's: the chunk's label says the same.
                if self.chunk(section).is_none() {
                    return Err(format!(".llvm_addrsig names section {section}, which is not transcribed whole"));
                }
                let _ = writeln!(out, "\t.addrsig_sym {}", self.chunk_label(section));
                continue;
            }
            // A local gone with its copy: the kept copy's part lists its own.
            if dropped && entry.st_bind() == elf::STB_LOCAL {
                continue;
            }
            let _ = writeln!(out, "\t.addrsig_sym {}", self.symbol_name(symbol)?);
        }
        Ok(())
    }

    /// The call graph profile: each edge's weight (8 bytes), whose caller
    /// and callee are the symbols of the two relocations at its offset
    /// (`R_X86_64_NONE`, the caller's first; implicit-addend, as the
    /// assembler writes them), as `.cg_profile` lines.
    fn call_graph_profile_text(&self, index: usize, out: &mut String) -> Result<(), String> {
        let malformed = || "the call graph profile is malformed".to_string();
        let weights = self.elf.section_bytes(index)?;
        if weights.len() % 8 != 0 {
            return Err(malformed());
        }
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); weights.len() / 8];
        for header in self.elf.relocation_sections(index) {
            for r in self.elf.relocations(header)? {
                match edges.get_mut((r.offset / 8) as usize) {
                    Some(edge) if r.offset % 8 == 0 && r.r_type == elf::R_X86_64_NONE && r.addend == 0 => edge.push(r.symbol),
                    _ => return Err(malformed()),
                }
            }
        }
        for (weight, edge) in weights.chunks_exact(8).zip(&edges) {
            let &[from, to] = edge.as_slice() else { return Err(malformed()) };
            let [from, to] = [from, to].map(|symbol| self.profile_symbol(symbol));
            let weight = u64::from_le_bytes(weight.try_into().expect("8 bytes"));
            let _ = writeln!(out, "\t.cg_profile {}, {}, {}", from?, to?, Num(weight));
        }
        Ok(())
    }

    /// A symbol a call graph profile's edge names: by its name.
    fn profile_symbol(&self, index: usize) -> Result<String, String> {
        let symbol = self.elf.symbol(index)?;
        let dropped = self.elf.defined_in(symbol).is_some_and(|s| self.kind(s) == Some(SectionKind::Dropped));
        if symbol.st_type() == elf::STT_SECTION || (dropped && symbol.st_bind() == elf::STB_LOCAL) {
            return Err("the call graph profile names a symbol the transcript does not".into());
        }
        self.symbol_name(index)
    }

    /// The plan of section `index` if the transcript emits its bytes.
    fn chunk(&self, index: usize) -> Option<&SectionPlan> {
        self.plans.get(index)?.as_ref().filter(|plan| plan.kind == SectionKind::Chunk)
    }

    /// A symbol's name as the host's text names it: renamed if it is a
    /// local another part defines too, its stock name if it is a promoted
    /// local made local again (`object_merge`).
    fn symbol_name(&self, index: usize) -> Result<String, String> {
        Ok(self.host_name(index)?.0)
    }

    /// [`Self::symbol_name`], and whether the symbol is a promoted local
    /// that the text makes local again.
    fn host_name(&self, index: usize) -> Result<(String, bool), String> {
        let symbol = self.elf.symbol(index)?;
        let name = self.elf.symbol_name(index)?;
        if symbol.st_bind() == elf::STB_LOCAL {
            if let Some(renamed) = self.decisions.local_name(&String::from_utf8_lossy(name), self.part) {
                return Ok((asm_name(renamed.as_bytes())?, false));
            }
        } else if let Some(local) = self.demoted_name(name) {
            return Ok((asm_name(local.as_bytes())?, true));
        }
        Ok((asm_name(name)?, false))
    }

    /// Stock's name of a promoted local that the text makes local again
    /// (`object_merge`), if `name` is one's promoted name.
    fn demoted_name(&self, name: &[u8]) -> Option<&str> {
        if self.decisions.demoted.is_empty() {
            return None;
        }
        self.decisions.demoted.get(String::from_utf8_lossy(name).as_ref()).map(String::as_str)
    }

    /// Whether another part's definition of (non-local) symbol `index`
    /// stands for this part's (`object_merge`).
    fn defined_elsewhere(&self, index: usize) -> Result<bool, String> {
        if self.decisions.defined_elsewhere.is_empty() {
            return Ok(false);
        }
        Ok(self.decisions.defined_elsewhere.contains(String::from_utf8_lossy(self.elf.symbol_name(index)?).as_ref()))
    }

    /// What section `index` is for the transcript (`None`: nothing, or no
    /// such section).
    fn kind(&self, index: usize) -> Option<SectionKind> {
        self.plans.get(index)?.as_ref().map(|plan| plan.kind)
    }

    fn chunk_label(&self, section: usize) -> String {
        format!(".Lmtpc.part{}.s{}", self.part, section)
    }

    /// Where offset `offset` of section `section` is, as an expression:
    /// past the chunk's label, or, for a debug string section, where its
    /// string is in the pool.
    fn position(&self, section: usize, offset: u64) -> Result<String, String> {
        match self.decisions.pooled.get(&section) {
            Some(pooled) => {
                let at = pooled.pooled_offset(offset).ok_or_else(|| format!("offset {offset} of section {section} is past its strings"))?;
                Ok(format!("{}+{}", Pools::label(pooled.pool), Num(at)))
            }
            None => Ok(format!("{}+{}", self.chunk_label(section), Num(offset))),
        }
    }

    /// A string of debug string section `section`, at `offset` in it, where
    /// the pool holds it: as the pool's section plus the string's offset
    /// in the pool, which is where the pool starts (`Pools::text` and
    /// `Pools::stand_in` put each pool first in a section of its own name).
    /// The assembler names a section's own symbol after it, and relocates
    /// against it: the section plus an offset, which names the piece at
    /// that offset to a linker that merges pieces (see `target`). A label
    /// at the string would say the same, but each costs the assembler a
    /// line (DuckDB's `ub_src_execution.cpp` with `-g` at 2 partitions:
    /// 30,544 such labels, a fifth of what `llvm-mc-16` spent on its
    /// transcript).
    fn pooled_string(&self, section: usize, offset: u64) -> Result<String, String> {
        let pooled = &self.decisions.pooled[&section];
        let at = pooled.pooled_offset(offset).ok_or_else(|| format!("offset {offset} of section {section} is past its strings"))?;
        let name = &self.plans[section].as_ref().expect("a pooled section has a plan").name;
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.$".contains(&b)) {
            return Err(format!("the pooled section {name:?} cannot be named in an expression"));
        }
        Ok(format!("{name}+{}", Num(at)))
    }

    fn merge_label(&self, section: usize, offset: i64) -> String {
        format!(".Lmtpc.part{}.s{}.at{}", self.part, section, offset)
    }
}

/// Whether `note` is the one GNU property note x86's code generator
/// writes for `-fcf-protection` (its feature bits aside): the host writes
/// it from the same module flags.
/// The modifier that makes the assembler relocate against a local symbol
/// itself, for the relocation types that reach it through the GOT or the
/// PLT (LLVM's `ELFObjectWriter::shouldRelocateWithSymbol`).
fn got_or_plt_modifier(r_type: u32) -> Option<&'static str> {
    match r_type {
        elf::R_X86_64_PLT32 => Some("@PLT"),
        elf::R_X86_64_GOTPCREL | elf::R_X86_64_GOTPCRELX | elf::R_X86_64_REX_GOTPCRELX => Some("@GOTPCREL"),
        _ => None,
    }
}

fn is_the_feature_note(note: &[u8]) -> bool {
    const NT_GNU_PROPERTY_TYPE_0: u32 = 5;
    const GNU_PROPERTY_X86_FEATURE_1_AND: u32 = 0xc000_0002;
    let word = |at: usize| note.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    note.len() == 32
        && [word(0), word(4), word(8)] == [Some(4), Some(16), Some(NT_GNU_PROPERTY_TYPE_0)]
        && &note[12..16] == b"GNU\0"
        && [word(16), word(20)] == [Some(GNU_PROPERTY_X86_FEATURE_1_AND), Some(4)]
        && word(28) == Some(0)
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
pub fn asm_name(name: &[u8]) -> Result<String, String> {
    let text = String::from_utf8_lossy(name);
    if name.is_empty() || name.iter().any(|&b| !(0x20..0x7f).contains(&b) || b == b'"' || b == b'\\') {
        return Err(format!("the name {text:?} cannot be quoted"));
    }
    let bare = !name[0].is_ascii_digit() && name.iter().all(|&b| b.is_ascii_alphanumeric() || b"_.$".contains(&b));
    Ok(if bare { text.into_owned() } else { format!("\"{text}\"") })
}

/// `+N` or `-N` (as [`Num`] writes N), nothing for zero.
fn signed(value: i64) -> String {
    match value {
        0 => String::new(),
        v if v > 0 => format!("+{}", Num(v.unsigned_abs())),
        v => format!("-{}", Num(v.unsigned_abs())),
    }
}

/// A number as the transcript writes it: in hexadecimal from 10 on.
/// LLVM 16's assembler reads every integer into a 128-bit `APInt`, a
/// decimal one by multiplying it by ten for each digit, each product a
/// new allocation: a transcript's offsets, addends and sizes cost more to
/// read than its bytes. A hexadecimal digit is a shift instead (DuckDB's
/// `ub_src_execution.cpp` at 2 partitions with `-g`, its transcript
/// assembled by `llvm-mc-16`: 1.49 G instructions in decimal, 1.20 G in
/// hexadecimal, the same object).
struct Num(u64);

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            v @ 0..=9 => write!(f, "{v}"),
            v => write!(f, "{v:#x}"),
        }
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
        let text = transcribe(&object, PATH, 3, &PartDecisions::default()).unwrap().text;
        // Each section: its directive, its alignment, a label, its bytes
        // (written out, being small; zeros for .bss), its relocations.
        assert!(has_line(&text, "\t.section .text,\"ax\",@progbits"), "{text}");
        assert!(has_line(&text, "\t.section .rodata.str1.1,\"aMS\",@progbits,1"), "{text}");
        assert!(has_line(&text, "\t.section .bss,\"aw\",@nobits"), "{text}");
        let code = chunk_label(&text, ".text");
        let strings = chunk_label(&text, ".rodata.str1.1");
        let data = chunk_label(&text, ".data");
        let bss = chunk_label(&text, ".bss");
        assert!(code.starts_with(".Lmtpc.part3.s"), "{code}");
        let code_bytes = r#".ascii "\350\000\000\000\000\303\303\220\303\220\220\220\220\220\220\220""#;
        assert!(text.contains(&format!("\t.p2align 4\n{code}:\n\t{code_bytes}\n")), "{text}");
        assert!(text.contains(&format!("{strings}:\n\t.ascii \"hi\\000yo\\000\"\n")), "{text}");
        assert!(!text.contains(".incbin"), "{text}");
        assert!(text.contains(&format!("{bss}:\n\t.zero 0x20\n")), "{text}");
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
    fn a_section_over_the_inline_limit_is_read_from_the_file() {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let rodata = obj.section_id(StandardSection::ReadOnlyData);
        obj.append_section_data(rodata, &vec![7; INLINE_BYTES_MAX as usize + 1], 16);
        let small = obj.section_id(StandardSection::Data);
        obj.append_section_data(small, &[1; 8], 8);
        let object = obj.write().unwrap();
        let transcript = transcribe(&object, PATH, 0, &PartDecisions::default()).unwrap();
        let text = &transcript.text;
        let elf = ElfObject::parse(&object).unwrap();
        let offset = elf.sections.iter().find(|s| elf.section_name(s).unwrap() == ".rodata").unwrap().sh_offset(elf.endian);
        let label = chunk_label(text, ".rodata");
        let (offset, size) = (Num(offset), Num(INLINE_BYTES_MAX + 1));
        assert!(text.contains(&format!("{label}:\n\t.incbin \"{PATH}\", {offset}, {size}\n")), "{text}");
        assert!(has_line(text, concat!("\t", r#".ascii "\001\001\001\001\001\001\001\001""#)), "{text}");
        assert_eq!(transcript.files_read, 1);
    }

    /// The bytes of `.ascii`'s operand as LLVM's assembler reads the
    /// escapes `write_ascii` writes (`AsmParser::parseEscapedString`: up to
    /// three octal digits after a backslash; `\"` and `\\`). Any other
    /// escape fails the test. (`every_byte_written_out_assembles_as_itself`
    /// in `tests/object_transcript.rs` has LLVM itself read them.)
    fn assembled_ascii(line: &str) -> Vec<u8> {
        let quoted = line.strip_prefix("\t.ascii \"").and_then(|l| l.strip_suffix("\"\n")).expect("one .ascii line");
        let chars = quoted.as_bytes();
        let (mut bytes, mut i) = (Vec::new(), 0);
        while i < chars.len() {
            if chars[i] != b'\\' {
                assert!(chars[i] != b'"', "an unescaped quote ends the string");
                bytes.push(chars[i]);
                i += 1;
                continue;
            }
            i += 1;
            let digits = chars[i..].iter().take(3).take_while(|c| (b'0'..=b'7').contains(c)).count();
            if digits == 0 {
                assert!(matches!(chars[i], b'"' | b'\\'), "an escape write_ascii does not write: \\{}", chars[i] as char);
                bytes.push(chars[i]);
                i += 1;
            } else {
                let value = chars[i..i + digits].iter().fold(0u32, |v, c| v * 8 + u32::from(c - b'0'));
                bytes.push(u8::try_from(value).expect("an octal escape within a byte"));
                i += digits;
            }
        }
        bytes
    }

    #[test]
    fn written_bytes_read_back_as_themselves() {
        // Every byte, each followed by a digit (which a shorter escape would
        // swallow), a quote and a backslash.
        let bytes: Vec<u8> = (0..=255u8).flat_map(|b| [b, b'7', b'"', b'\\']).collect();
        let mut line = String::new();
        write_ascii(&mut line, &bytes);
        assert_eq!(line.lines().count(), 1);
        assert!(line.bytes().all(|c| (0x20..0x7f).contains(&c) || c == b'\n' || c == b'\t'), "{line}");
        assert_eq!(assembled_ascii(&line), bytes);
    }

    #[test]
    fn a_got_or_plt_reference_to_a_local_keeps_its_symbol() {
        // `f@GOTPCREL(%rip)` in code and `f@PLT - .` in a relative table:
        // the part's assembler relocates against local `f` itself, and so
        // must the host's (without the modifier it would use the section).
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3], 16);
        let table = obj.section_id(StandardSection::ReadOnlyData);
        obj.append_section_data(table, &[0; 4], 4);
        let f = obj.add_symbol(symbol("f", SymbolKind::Text, SymbolScope::Compilation, SymbolSection::Section(text), 7, 1));
        obj.add_relocation(text, reloc(3, f, -4, elf::R_X86_64_REX_GOTPCRELX)).unwrap();
        obj.add_relocation(table, reloc(0, f, 0, elf::R_X86_64_PLT32)).unwrap();
        let text_of = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap().text;
        let code = chunk_label(&text_of, ".text");
        let rodata = chunk_label(&text_of, ".rodata");
        assert!(has_line(&text_of, &format!("\t.reloc {code}+3, R_X86_64_REX_GOTPCRELX, f@GOTPCREL-4")), "{text_of}");
        assert!(has_line(&text_of, &format!("\t.reloc {rodata}+0, R_X86_64_PLT32, f@PLT")), "{text_of}");
    }

    #[test]
    fn a_comdat_member_names_its_group() {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let section = obj.add_section(Vec::new(), b".text._Z1fv".to_vec(), SectionKind::Text);
        obj.append_section_data(section, &[0xc3], 16);
        let f = obj.add_symbol(symbol("_Z1fv", SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(section), 0, 1));
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: f, sections: vec![section] });
        let text = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap().text;
        assert!(has_line(&text, "\t.section .text._Z1fv,\"axG\",@progbits,_Z1fv,comdat"), "{text}");
    }

    #[test]
    fn a_large_section_is_stated_large() {
        // -mcmodel=large's code, -mcmodel=medium's large data (LLVM 18 on).
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let section = obj.add_section(Vec::new(), b".ldata".to_vec(), SectionKind::Data);
        obj.section_mut(section).flags = object::SectionFlags::Elf { sh_flags: elf::SHF_ALLOC as u64 | elf::SHF_WRITE as u64 | SHF_X86_64_LARGE };
        obj.append_section_data(section, &[1, 2, 3, 4], 8);
        let text = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap().text;
        assert!(has_line(&text, "\t.section .ldata,\"awl\",@progbits"), "{text}");
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
        let e = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap_err();
        assert!(e.contains("section asan_globals has flags 0x83"), "{e}");
        // A relocation type the assembler's .reloc does not know.
        let (mut obj, section) = with_section(".data", SectionKind::Data);
        let ext = obj.add_symbol(symbol("ext", SymbolKind::Unknown, SymbolScope::Linkage, SymbolSection::Undefined, 0, 0));
        obj.add_relocation(section, reloc(0, ext, 0, 40)).unwrap();
        let e = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap_err();
        assert!(e.contains("relocation type 40 has no name"), "{e}");
        // A name the assembler would not read back.
        let (mut obj, section) = with_section(".data", SectionKind::Data);
        obj.add_symbol(symbol("a\"b", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(section), 0, 4));
        let e = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap_err();
        assert!(e.contains("cannot be quoted"), "{e}");
        assert!(transcribe(b"not an object", PATH, 0, &PartDecisions::default()).unwrap_err().contains("cannot be read"));
        // A relocation against a local symbol the part's assembler kept for
        // no reason a transcript can say (not through the GOT or the PLT,
        // not thread-local, not into a mergeable section): its host would
        // relocate through the section.
        let (mut obj, section) = with_section(".text", SectionKind::Text);
        let local = obj.add_symbol(symbol("helper", SymbolKind::Text, SymbolScope::Compilation, SymbolSection::Section(section), 1, 1));
        obj.add_relocation(section, reloc(0, local, -4, elf::R_X86_64_PC32)).unwrap();
        let e = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap_err();
        assert!(e.contains("a relocation of type 2 names local symbol helper"), "{e}");
        // Two sections of one name (unique ids): .section would merge them.
        let (mut obj, _) = with_section(".text.cold", SectionKind::Text);
        let second = obj.add_section(Vec::new(), b".text.cold".to_vec(), SectionKind::Text);
        obj.append_section_data(second, &[0xc3], 1);
        let e = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap_err();
        assert!(e.contains("two sections are named .text.cold"), "{e}");
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

    /// Transcripts of `objects` made with what `object_merge` decides of them.
    fn transcribed_together(objects: &[Vec<u8>]) -> (Vec<Transcript>, crate::object_merge::Decisions) {
        let facts: Vec<_> = objects.iter().map(|o| crate::object_merge::PartFacts::read(o).unwrap()).collect();
        let refs: Vec<&[u8]> = objects.iter().map(Vec::as_slice).collect();
        let decisions = crate::object_merge::decide(&refs, &facts, &HashMap::new()).unwrap();
        let transcripts = objects.iter().enumerate().map(|(k, o)| transcribe(o, PATH, k, &decisions.parts[k]).unwrap()).collect();
        (transcripts, decisions)
    }

    #[test]
    fn debug_strings_are_named_where_the_pool_holds_them() {
        let (transcripts, decisions) =
            transcribed_together(&[object_with_debug_strings(&["int", "char", "f"], false), object_with_debug_strings(&["g", "int"], false)]);
        assert_eq!(decisions.pools.0[0].bytes, b"int\0char\0f\0g\0");
        for (k, expected) in [(0, ["0", "4", "9"].as_slice()), (1, ["0xb", "0"].as_slice())] {
            let text = &transcripts[k].text;
            // No chunk of its own: each reference is a label in the pool.
            assert!(!text.contains(".section .debug_str,"), "{text}");
            // The string offsets are words that name them by the pool's
            // section, where the pool starts: no label of their own.
            assert!(!text.contains("\t.reloc") && !text.contains(" = "), "{text}");
            let targets: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("\t.long ")).collect();
            let pooled: Vec<String> = expected.iter().map(|at| format!(".debug_str+{at}")).collect();
            assert_eq!(targets, pooled, "part {k}: {text}");
        }
    }

    /// A part with a C++ function `f` whose exception handling refers to
    /// the personality routine through its group's `DW.ref`, and a local
    /// `helper` that `f` calls.
    fn part_with_personality(own: &str) -> Vec<u8> {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xe8, 0, 0, 0, 0, 0xc3, 0xc3], 16);
        obj.add_symbol(symbol(own, SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 6));
        obj.add_symbol(symbol("helper", SymbolKind::Text, SymbolScope::Compilation, SymbolSection::Section(text), 6, 1));
        // The call to it, as the assembler writes it: through the section.
        let code = obj.section_symbol(text);
        obj.add_relocation(text, reloc(1, code, 2, elf::R_X86_64_PC32)).unwrap();
        let data = obj.add_section(Vec::new(), b".data.DW.ref.__gxx_personality_v0".to_vec(), SectionKind::Data);
        obj.append_section_data(data, &[0; 8], 8);
        let mut key = symbol("DW.ref.__gxx_personality_v0", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(data), 0, 8);
        key.weak = true;
        let key = obj.add_symbol(key);
        let personality = obj.add_symbol(symbol("__gxx_personality_v0", SymbolKind::Unknown, SymbolScope::Dynamic, SymbolSection::Undefined, 0, 0));
        obj.add_relocation(data, reloc(0, personality, 0, elf::R_X86_64_64)).unwrap();
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![data] });
        let note = obj.add_section(Vec::new(), b".note.gnu.property".to_vec(), SectionKind::Note);
        obj.append_section_data(note, &property_note(0xc000_0002, 3), 8);
        obj.write().unwrap()
    }

    #[test]
    fn a_copy_another_parts_stands_for_is_left_out_and_what_it_defines_is_referred_to() {
        let (transcripts, _) = transcribed_together(&[part_with_personality("f"), part_with_personality("g")]);
        let (first, later) = (&transcripts[0].text, &transcripts[1].text);
        let section = "\t.section .data.DW.ref.__gxx_personality_v0,\"awG\",@progbits,DW.ref.__gxx_personality_v0,comdat";
        assert!(has_line(first, section) && !has_line(later, section), "{first}\n{later}");
        assert!(first.lines().any(|l| l.starts_with("DW.ref.__gxx_personality_v0 = ")), "{first}");
        assert!(!later.lines().any(|l| l.starts_with("DW.ref.__gxx_personality_v0 = ")), "{later}");
        // Still named by the later part as the weak symbol it is, sized by the first alone.
        assert!(has_line(later, "\t.weak DW.ref.__gxx_personality_v0") && !later.contains(".size DW.ref"), "{later}");
        assert!(transcripts[1].stated.references.contains(&("DW.ref.__gxx_personality_v0".to_string(), Binding::Weak)));
        // The code generator's CET note is the host's to write.
        assert!(!first.contains(".note.gnu.property") && !later.contains(".note.gnu.property"), "{first}");
    }

    #[test]
    fn locals_several_parts_define_are_renamed() {
        let (transcripts, _) = transcribed_together(&[part_with_personality("f"), part_with_personality("g")]);
        for (k, transcript) in transcripts.iter().enumerate() {
            let text = &transcript.text;
            let code = chunk_label(text, ".text");
            assert!(has_line(text, &format!("helper.mtpc{k} = {code}+6")), "{text}");
            assert!(has_line(text, &format!("\t.reloc {code}+1, R_X86_64_PC32, {code}+2")), "{text}");
            assert!(!text.lines().any(|l| l.starts_with("helper =")), "{text}");
        }
        let stated: Vec<&Stated> = transcripts.iter().map(|t| &t.stated).collect();
        assert_eq!(check_across_parts(&stated), Ok(()));
    }

    /// A part that defines `own` and calls `callee` (a hidden symbol, as
    /// a promoted local is in the part that only names it); with `define`,
    /// it also defines `callee`, weak and hidden, as a promoted local's
    /// copy that one part keeps; and a string in a mergeable section that
    /// a hidden symbol `string` names.
    fn part_calling(own: &str, callee: &str, define: bool, string: &str) -> Vec<u8> {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xe8, 0, 0, 0, 0, 0xc3, 0xc3], 16);
        obj.add_symbol(symbol(own, SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 6));
        let hidden = |mut s: Symbol, bind: u8, st_type: u8| {
            s.weak = bind == elf::STB_WEAK;
            s.flags = SymbolFlags::Elf { st_info: (bind << 4) | st_type, st_other: elf::STV_HIDDEN };
            s
        };
        let target = match define {
            true => hidden(symbol(callee, SymbolKind::Text, SymbolScope::Linkage, SymbolSection::Section(text), 6, 1), elf::STB_WEAK, elf::STT_FUNC),
            false => hidden(symbol(callee, SymbolKind::Unknown, SymbolScope::Linkage, SymbolSection::Undefined, 0, 0), elf::STB_GLOBAL, elf::STT_NOTYPE),
        };
        let target = obj.add_symbol(target);
        obj.add_relocation(text, reloc(1, target, -4, elf::R_X86_64_PLT32)).unwrap();
        if define {
            let strings = obj.add_section(Vec::new(), b".rodata.str1.1".to_vec(), SectionKind::ReadOnlyString);
            obj.section_mut(strings).flags = object::SectionFlags::Elf { sh_flags: (elf::SHF_ALLOC | elf::SHF_MERGE | elf::SHF_STRINGS) as u64 };
            obj.append_section_data(strings, b"hi\0", 1);
            let s = symbol(string, SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(strings), 0, 3);
            obj.add_symbol(hidden(s, elf::STB_GLOBAL, elf::STT_OBJECT));
        }
        obj.write().unwrap()
    }

    /// Transcripts of `objects`, with the promoted locals `promoted`.
    fn transcribed_promoted(objects: &[Vec<u8>], promoted: &[(&str, &str)]) -> Vec<Transcript> {
        let facts: Vec<_> = objects.iter().map(|o| crate::object_merge::PartFacts::read(o).unwrap()).collect();
        let refs: Vec<&[u8]> = objects.iter().map(Vec::as_slice).collect();
        let promoted: HashMap<String, String> = promoted.iter().map(|&(from, to)| (from.to_string(), to.to_string())).collect();
        let decisions = crate::object_merge::decide(&refs, &facts, &promoted).unwrap();
        objects.iter().enumerate().map(|(k, o)| transcribe(o, PATH, k, &decisions.parts[k]).unwrap()).collect()
    }

    /// A promoted local function that one part defines is local again under
    /// its own name in every part's transcript: no binding, no visibility,
    /// and the part that only calls it states nothing of it. A promoted
    /// string in a mergeable section keeps its promoted name.
    #[test]
    fn promoted_locals_one_part_defines_are_local_again() {
        let promoted = [("helper.mtpc.00ff", "helper"), ("str.mtpc.00ff", "str")];
        let parts = [part_calling("f", "helper.mtpc.00ff", true, "str.mtpc.00ff"), part_calling("g", "helper.mtpc.00ff", false, "")];
        let transcripts = transcribed_promoted(&parts, &promoted);
        let (first, later) = (&transcripts[0].text, &transcripts[1].text);
        let code = chunk_label(first, ".text");
        assert!(has_line(first, &format!("helper = {code}+6")), "{first}");
        assert!(has_line(first, "\t.type helper,@function") && has_line(first, "\t.size helper, 1"), "{first}");
        assert!(!first.contains(".weak helper") && !first.contains(".hidden helper") && !first.contains("helper.mtpc"), "{first}");
        assert!(has_line(first, "\t.globl str.mtpc.00ff") && has_line(first, "\t.hidden str.mtpc.00ff"), "{first}");
        // Calls to it from the section it is in, in any part, are the
        // host's assembler's to resolve, as stock's resolves them: the
        // call's word is the distance to it, and no relocation stays (the
        // parts' code generators wrote the calls for a symbol another
        // object could define: stock's may also shorten a jump).
        for text in [first, later] {
            let code = chunk_label(text, ".text");
            assert!(text.contains(&format!("{code}:\n\t.ascii \"\\350\"\n\t.long helper-4-.\n\t.ascii \"\\303\\303\"\n")), "{text}");
            assert!(!text.contains(".reloc"), "{text}");
        }
        assert!(!later.contains("helper.mtpc") && !later.contains(".type helper"), "{later}");
        let stated: Vec<&Stated> = transcripts.iter().map(|t| &t.stated).collect();
        assert_eq!(check_across_parts(&stated), Ok(()));
    }

    /// In a large section, calls to a promoted local made local again in
    /// the same section split what is read from the file: the bytes
    /// between them are read from where they are (or written out, if
    /// short), each call's word is the distance to the local with its own
    /// addend, and any other relocation stays a `.reloc` at its offset.
    #[test]
    fn calls_to_a_local_again_in_a_large_section_split_what_is_read() {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.section_id(StandardSection::Text);
        let size = 3 * PIECE_INLINE_MAX as usize;
        obj.append_section_data(text, &vec![0x90; size], 16);
        let mut helper = symbol("helper.mtpc.00ff", SymbolKind::Text, SymbolScope::Linkage, SymbolSection::Section(text), 0, 1);
        helper.flags = SymbolFlags::Elf { st_info: (elf::STB_GLOBAL << 4) | elf::STT_FUNC, st_other: elf::STV_HIDDEN };
        let helper = obj.add_symbol(helper);
        let ext = obj.add_symbol(symbol("ext", SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Undefined, 0, 0));
        let (first, second) = (PIECE_INLINE_MAX as usize + 10, PIECE_INLINE_MAX as usize + 100);
        for at in [first, second] {
            obj.section_mut(text).data_mut()[at..at + 4].fill(0);
        }
        obj.add_relocation(text, reloc(first as u64, helper, -4, elf::R_X86_64_PLT32)).unwrap();
        obj.add_relocation(text, reloc(second as u64, helper, 8, elf::R_X86_64_PC32)).unwrap();
        obj.add_relocation(text, reloc(20, ext, -4, elf::R_X86_64_PLT32)).unwrap();
        let object = obj.write().unwrap();
        let promoted = [("helper.mtpc.00ff", "helper")];
        let transcript = &transcribed_promoted(&[object.clone()], &promoted)[0];
        let t = &transcript.text;
        let elf = ElfObject::parse(&object).unwrap();
        let offset = elf.sections.iter().find(|s| elf.section_name(s).unwrap() == ".text").unwrap().sh_offset(elf.endian);
        let code = chunk_label(t, ".text");
        let read = |from: usize, to: usize| format!("\t.incbin \"{PATH}\", {}, {}\n", Num(offset + from as u64), Num((to - from) as u64));
        let between = format!("\t.ascii \"{}\"\n", "\\220".repeat(second - first - 4));
        let expected = format!(
            "{code}:\n{}\t.long helper-4-.\n{between}\t.long helper+8-.\n{}",
            read(0, first),
            read(second + 4, size)
        );
        assert!(t.contains(&expected), "{t}");
        assert!(has_line(t, &format!("\t.reloc {code}+{}, R_X86_64_PLT32, ext-4", Num(20))) && t.matches(".reloc").count() == 1, "{t}");
        assert_eq!(transcript.files_read, 2);
    }

    /// A section named after a promoted local made local again
    /// (`-ffunction-sections`) is named after its stock name; a call into
    /// it from another section names it, by a relocation.
    #[test]
    fn sections_named_after_promoted_locals_are_named_after_them_again() {
        /// A part that defines `helper.mtpc.00ff`, hidden, in `section`.
        fn defining_helper_in(section: &str) -> Vec<u8> {
            let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
            let code = obj.add_section(Vec::new(), section.as_bytes().to_vec(), SectionKind::Text);
            obj.append_section_data(code, &[0xc3], 16);
            let mut helper = symbol("helper.mtpc.00ff", SymbolKind::Text, SymbolScope::Linkage, SymbolSection::Section(code), 0, 1);
            helper.flags = SymbolFlags::Elf { st_info: (elf::STB_GLOBAL << 4) | elf::STT_FUNC, st_other: elf::STV_HIDDEN };
            obj.add_symbol(helper);
            obj.write().unwrap()
        }
        let promoted = [("helper.mtpc.00ff", "helper")];
        let transcripts = transcribed_promoted(&[defining_helper_in(".text.hot"), part_calling("g", "helper.mtpc.00ff", false, "")], &promoted);
        let later = &transcripts[1].text;
        let code = chunk_label(later, ".text");
        assert!(has_line(later, &format!("\t.reloc {code}+1, R_X86_64_PLT32, helper-4")), "{later}");
        let transcripts = transcribed_promoted(&[defining_helper_in(".text.helper.mtpc.00ff")], &promoted);
        assert!(transcripts[0].text.contains("\t.section .text.helper,\"ax\",@progbits\n"), "{}", transcripts[0].text);
        assert!(!transcripts[0].text.contains("mtpc.00ff"), "{}", transcripts[0].text);
    }

    /// A promoted local keeps its promoted name where another symbol has
    /// its own name (a library call the code generator made), where no
    /// part, or two, define it, and where a part reaches it through the GOT
    /// (which, to a local, would reach its section).
    #[test]
    fn promoted_locals_stay_promoted_where_their_name_is_taken() {
        let promoted = [("helper.mtpc.00ff", "helper")];
        let taken = [part_calling("f", "helper.mtpc.00ff", true, "s"), part_calling("g", "helper", false, "")];
        let undefined = [part_calling("f", "helper.mtpc.00ff", false, ""), part_calling("g", "helper.mtpc.00ff", false, "")];
        let twice = [part_calling("f", "helper.mtpc.00ff", true, "s"), part_calling("g", "helper.mtpc.00ff", true, "t")];
        let through_the_got = {
            let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
            let text = obj.section_id(StandardSection::Text);
            obj.append_section_data(text, &[0x48, 0x8b, 0x05, 0, 0, 0, 0, 0xc3], 16);
            let target = obj.add_symbol(symbol("helper.mtpc.00ff", SymbolKind::Unknown, SymbolScope::Linkage, SymbolSection::Undefined, 0, 0));
            obj.add_relocation(text, reloc(3, target, -4, elf::R_X86_64_REX_GOTPCRELX)).unwrap();
            [part_calling("f", "helper.mtpc.00ff", true, "s"), obj.write().unwrap()]
        };
        for parts in [&taken, &undefined, &twice, &through_the_got] {
            let transcripts = transcribed_promoted(parts, &promoted);
            assert!(transcripts[0].text.contains("helper.mtpc.00ff"), "{}", transcripts[0].text);
            assert!(!transcripts.iter().any(|t| t.text.lines().any(|l| l.starts_with("helper ="))), "{}", transcripts[0].text);
        }
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
        // A promoted local made local again: defined by one part, named
        // by the others as such; a part naming it otherwise, or none
        // defining it, would take or make a global of that name.
        let defines_helper = stated(&[("f", Global), ("helper", Demoted)], &[], &[]);
        let calls_helper = stated(&[], &[("helper", Demoted)], &[]);
        assert_eq!(check_across_parts(&[&calls_helper, &defines_helper]), Ok(()));
        let e = check_across_parts(&[&calls_helper]).unwrap_err();
        assert!(e.contains("promoted local helper, made local again, is named by part 0 and defined by none"), "{e}");
        let e = check_across_parts(&[&defines_helper, &names_helper]).unwrap_err();
        assert!(e.contains("symbol helper is a promoted local made local again in part 0, not in part 1"), "{e}");
        // A section two parts declare with other flags.
        let writable = stated(&[], &[], &[(".text", alloc | 1)]);
        let e = check_across_parts(&[&caller, &writable]).unwrap_err();
        assert!(e.contains("section .text is declared with type 0x1, flags 0x6, entry size 0 by part 0 and type 0x1, flags 0x3"), "{e}");
    }

    #[test]
    fn a_part_object_states_what_it_defines_names_and_declares() {
        let transcript = transcribe(&part_object(), PATH, 3, &PartDecisions::default()).unwrap();
        let names = |list: &[(String, Binding)]| list.iter().map(|(n, b)| format!("{n}:{b:?}")).collect::<BTreeSet<_>>();
        let defines = names(&transcript.stated.defines);
        assert_eq!(defines, ["counter:Local", "f:Global", "g:Local", "w:Weak"].map(String::from).into(), "{transcript:?}");
        assert_eq!(names(&transcript.stated.references), ["ext:Reference".to_string()].into());
        let text = transcript.stated.sections.iter().find(|((name, _), _)| name == ".rodata.str1.1").unwrap();
        assert_eq!(text.1, (elf::SHT_PROGBITS, (elf::SHF_ALLOC | elf::SHF_MERGE | elf::SHF_STRINGS) as u64, 1));
    }

    /// A GNU property note with one 4-byte property (`-fcf-protection`'s:
    /// `0xc000_0002`, its feature bits `bits`).
    fn property_note(pr_type: u32, bits: u32) -> Vec<u8> {
        let words = |words: &[u32]| words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
        [words(&[4, 16, 5]), b"GNU\0".to_vec(), words(&[pr_type, 4, bits, 0])].concat()
    }

    #[test]
    fn only_the_code_generators_feature_note_is_left_to_the_host() {
        let note = property_note;
        assert!(is_the_feature_note(&note(0xc000_0002, 3)));
        assert!(is_the_feature_note(&note(0xc000_0002, 1)));
        // An ISA level (written by inline asm, say), or a second note.
        assert!(!is_the_feature_note(&note(0xc000_8002, 1)));
        assert!(!is_the_feature_note(&[note(0xc000_0002, 3), note(0xc000_8002, 1)].concat()));
        assert!(!is_the_feature_note(&[]));
    }

    #[test]
    fn names_are_bare_identifiers_or_quoted() {
        assert_eq!(asm_name(b"sqlite3Malloc.mtpc.bfe71196daa6ccba").unwrap(), "sqlite3Malloc.mtpc.bfe71196daa6ccba");
        assert_eq!(asm_name(b".L.str.5").unwrap(), ".L.str.5");
        assert_eq!(asm_name(b"foo@GLIBC_2.2.5").unwrap(), "\"foo@GLIBC_2.2.5\"");
        assert_eq!(asm_name(b"1st").unwrap(), "\"1st\"");
        assert!(asm_name(b"").is_err() && asm_name(b"a\\b").is_err() && asm_name(b"a\nb").is_err());
        assert_eq!((signed(0), signed(5), signed(-4)), (String::new(), "+5".into(), "-4".into()));
        assert_eq!((signed(10), signed(-300)), ("+0xa".into(), "-0x12c".into()));
        assert_eq!(uleb128(&[0xe5, 0x8e, 0x26, 7]), Some((624_485, 3)));
        assert_eq!(uleb128(&[0x80]), None);
    }

    #[test]
    fn numbers_from_ten_on_are_written_in_hexadecimal() {
        let written: Vec<String> = [0, 9, 10, 255, 2_195_120, u64::MAX].iter().map(|&v| Num(v).to_string()).collect();
        assert_eq!(written, ["0", "9", "0xa", "0xff", "0x217eb0", "0xffffffffffffffff"]);
    }

    fn word(offset: u64, r_type: u32) -> crate::elf_object::Relocation {
        crate::elf_object::Relocation { offset, r_type, symbol: 1, addend: 0 }
    }

    #[test]
    fn plain_words_in_place_order_are_data() {
        // A unit header, then string offsets and an address.
        let bytes = [[1u8, 2, 3, 4].as_slice(), &[0; 16]].concat();
        let relocations = [word(4, elf::R_X86_64_32), word(8, elf::R_X86_64_32), word(12, elf::R_X86_64_64)];
        let words = data_words(&bytes, &relocations, |_| true).expect("plain words");
        assert_eq!(words.iter().map(|w| (w.offset, w.width)).collect::<Vec<_>>(), [(4, 4), (8, 4), (12, 8)]);
        // What `.long`/`.quad` would not say as the part's object does.
        let declined = |bytes: &[u8], relocations: &[crate::elf_object::Relocation], plain: bool| data_words(bytes, relocations, |_| plain).is_none();
        assert!(declined(&bytes, &[], true), "no relocation: nothing to gain");
        assert!(declined(&bytes, &[word(8, elf::R_X86_64_32), word(4, elf::R_X86_64_32)], true), "out of place order");
        assert!(declined(&bytes, &[word(4, elf::R_X86_64_64), word(8, elf::R_X86_64_32)], true), "overlapping words");
        assert!(declined(&bytes, &[word(4, elf::R_X86_64_PC32)], true), "relative to its place");
        assert!(declined(&bytes, &[word(0, elf::R_X86_64_32)], true), "bytes under the word");
        assert!(declined(&bytes, &[word(16, elf::R_X86_64_64)], true), "past the end");
        assert!(declined(&bytes, &[word(4, elf::R_X86_64_32)], false), "an absolute, thread-local or indirect target");
        // A word, then more bytes than are worth writing out.
        let long = vec![0u8; 8 + INLINE_BYTES_MAX as usize + DATA_BYTES_PER_WORD + 1];
        assert!(declined(&long, &[word(0, elf::R_X86_64_64)], true), "mostly bytes");
        assert!(!declined(&long[..long.len() - 1], &[word(0, elf::R_X86_64_64)], true));
    }

    #[test]
    fn a_table_of_addresses_is_written_as_words() {
        let mut obj = Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little);
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xc3; 32], 16);
        let f = obj.add_symbol(symbol("f", SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 32));
        let table = obj.section_id(StandardSection::ReadOnlyData);
        obj.append_section_data(table, &[[7u8; 3].as_slice(), &[0; 12], &[9]].concat(), 1);
        obj.add_relocation(table, reloc(3, f, 20, elf::R_X86_64_64)).unwrap();
        let code_start = obj.section_symbol(text);
        obj.add_relocation(table, reloc(11, code_start, 16, elf::R_X86_64_32)).unwrap();
        let transcript = transcribe(&obj.write().unwrap(), PATH, 0, &PartDecisions::default()).unwrap();
        let text_of = &transcript.text;
        let code = chunk_label(text_of, ".text");
        let rodata = chunk_label(text_of, ".rodata");
        // The bytes around the words written out, each word naming its
        // target as `.reloc` would, and no `.reloc` for the table.
        let expected = format!("{rodata}:\n\t.ascii \"\\007\\007\\007\"\n\t.quad f+0x14\n\t.long {code}+0x10\n\t.ascii \"\\011\"\n");
        assert!(text_of.contains(&expected), "{text_of}");
        assert!(!text_of.contains(&format!(".reloc {rodata}")), "{text_of}");
    }
}
