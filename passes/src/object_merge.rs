//! What the parts' objects say alike, decided before any is transcribed.
//!
//! Where the host is clang writing an object, each partition's code
//! generator writes an object (its debug sections whole) rather than
//! assembly text, and the host is handed the objects transcribed
//! (`object_transcript`): no text is printed, merged or parsed again. Each
//! part's object was written as if it were the only one, so joining them
//! needs what `asm_merge` does for texts, decided here from what each part's
//! object says ([`PartFacts`], read on the part's worker):
//! - a section of a COMDAT group that several parts write (the code
//!   generator's `DW.ref.__gxx_personality_v0`) is kept from the first part
//!   that writes it, if every later copy is the same (its bytes, and its
//!   relocations by target); what a later copy defines becomes a reference
//!   to the first's. A group's sections that parts write apart are each
//!   kept: the object's group holds all of them;
//! - a weak data object that several parts define outside any group (one the
//!   pipeline adds to every module, such as MemorySanitizer's
//!   `__msan_track_origins`) is defined by the first, if every copy is the
//!   same (a later part's bytes stay, unnamed);
//! - local symbols that several parts define (`GCC_except_table1`) are
//!   renamed per part (`name.mtpcK`), and private labels the assembler
//!   kept (`.L.str.3`) are each part's own (`.LmtpcK..str.3`), as the text
//!   merge names them;
//! - the strings of the debug string sections (`.debug_str`,
//!   `.debug_line_str`) are held once, in a pool before the first part:
//!   every part's references to its own strings point into the pool, as
//!   stock's object holds each string once;
//! - a DWARF type unit (`-fdebug-types-section`: a type's description in a
//!   COMDAT group named by the type's signature) that several parts write
//!   is kept from the first, its later copies dropped unread: a unit
//!   describes its type whole, and the units of one signature are one
//!   type's (the linker keeps one of them among objects the same way);
//!   each part numbers its abbreviations its own way, so the copies differ
//!   in bytes;
//! - `.comment`'s strings are stated once;
//! - an `internal` function or variable of the module that the split
//!   promoted (renamed `NAME.mtpc.HASH`, hidden, so that other partitions
//!   could name it) and that one part defines is local again under its own
//!   name, as in stock's object, unless a part names something else so
//!   (and the sections named after it are named after that name).
//!
//! Any other symbol two parts define, or a section two parts declare
//! differently, is found where the parts' transcripts meet
//! (`object_transcript::check_across_parts`).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use object::elf;
use object::read::elf::{SectionHeader as _, Sym as _};

use crate::elf_object::{ElfObject, SectionHeader, SHT_LLVM_ADDRSIG};
use crate::local_again::{sections_named_again, LocalAgain};

/// What the merge reads of one part's object, on the part's worker.
#[derive(Debug, Default)]
pub struct PartFacts {
    /// By section index (0: the null section).
    sections: Vec<SectionFacts>,
    /// By symbol index (0: the null symbol).
    symbols: Vec<SymbolFacts>,
    /// `.comment`'s strings.
    idents: Vec<String>,
    /// It has an address-significance table.
    address_significance: bool,
    /// The signatures of the DWARF type units it writes ([`type_unit_groups`]).
    type_units: HashSet<String>,
}

#[derive(Debug, Default)]
struct SectionFacts {
    name: String,
    sh_type: u32,
    sh_flags: u64,
    /// The signature of its COMDAT group (`None` for a group named by a
    /// local symbol, which is its part's own: the `.fini_array` entry of a
    /// destructor whose associated data is private).
    group: Option<String>,
    /// For a debug string section (see [`is_debug_strings`]): the offset
    /// of each string.
    string_starts: Option<Vec<u64>>,
    /// For a member of a DWARF type unit's group: the type's signature.
    type_unit: Option<String>,
}

#[derive(Debug, Default)]
struct SymbolFacts {
    name: String,
    binding: u8,
    st_type: u8,
    /// The section it is defined in (a regular index), if any.
    section: Option<usize>,
    value: u64,
    size: u64,
    /// A group's signature the assembler made (`ElfObject::names_its_group`).
    names_a_group: bool,
    /// Some relocation of its part names it, non-local, with a type outside
    /// [`RELOCATED_THROUGH_A_SECTION`] (through the GOT, its size): made
    /// local, it would be reached through its section instead.
    relocated_otherwise: bool,
}

impl SymbolFacts {
    /// A symbol that names something (not a section's or the file's).
    fn is_named(&self) -> bool {
        self.st_type != elf::STT_SECTION && self.st_type != elf::STT_FILE && !self.name.is_empty()
    }
}

impl PartFacts {
    /// Reads what the merge needs of `object` (an x86-64 ELF relocatable
    /// object); `Err` if it cannot be read.
    pub fn read(object: &[u8]) -> Result<PartFacts, String> {
        let elf = ElfObject::parse(object)?;
        let endian = elf.endian;
        let mut facts = PartFacts::default();
        let mut groups: HashMap<usize, String> = HashMap::new();
        let mut type_units: HashMap<usize, String> = HashMap::new();
        for group in type_unit_groups(&elf)? {
            let signature = String::from_utf8_lossy(elf.symbol_name(group.signature)?).into_owned();
            type_units.extend(group.members.iter().map(|&member| (member, signature.clone())));
            facts.type_units.insert(signature);
        }
        for group in elf.groups()? {
            let signature = elf.symbol(group.signature)?;
            if signature.st_bind() == elf::STB_LOCAL {
                continue;
            }
            let signature = String::from_utf8_lossy(elf.symbol_name(group.signature)?).into_owned();
            groups.extend(group.members.into_iter().map(|member| (member, signature.clone())));
        }
        for (index, header) in elf.sections.iter().enumerate() {
            let name = elf.section_name(header)?;
            let string_starts = match is_debug_strings(&name, header) && !elf.is_relocated(index) {
                true => Some(string_starts(elf.section_bytes(index)?).ok_or_else(|| format!("{name} does not end its last string"))?),
                false => None,
            };
            if header.sh_type(endian) == SHT_LLVM_ADDRSIG {
                facts.address_significance = true;
            }
            if name == ".comment" {
                let bytes = elf.section_bytes(index)?;
                facts.idents = bytes.split(|&b| b == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect();
            }
            let (sh_type, sh_flags) = (header.sh_type(endian), header.sh_flags(endian));
            let type_unit = type_units.remove(&index);
            facts.sections.push(SectionFacts { name, sh_type, sh_flags, group: groups.remove(&index), string_starts, type_unit });
        }
        facts.symbols.push(SymbolFacts::default());
        for index in 1..elf.symbols.len() {
            let symbol = elf.symbol(index)?;
            let name = match symbol.st_type() {
                elf::STT_SECTION | elf::STT_FILE => String::new(),
                _ => String::from_utf8_lossy(elf.symbol_name(index)?).into_owned(),
            };
            let names_a_group = !name.is_empty() && elf.names_its_group(symbol);
            facts.symbols.push(SymbolFacts {
                name,
                binding: symbol.st_bind(),
                st_type: symbol.st_type(),
                section: elf.defined_in(symbol),
                value: symbol.st_value(endian),
                size: symbol.st_size(endian),
                names_a_group,
                relocated_otherwise: false,
            });
        }
        for header in elf.sections.iter().filter(|h| h.sh_type(endian) == elf::SHT_RELA) {
            for r in elf.relocations(header)?.into_iter().filter(|r| !RELOCATED_THROUGH_A_SECTION.contains(&r.r_type)) {
                let symbol = facts.symbols.get_mut(r.symbol).ok_or_else(|| format!("a relocation names symbol {}, which is not in the table", r.symbol))?;
                if symbol.binding != elf::STB_LOCAL {
                    symbol.relocated_otherwise = true;
                }
            }
        }
        Ok(facts)
    }

    /// Whether the part's object has an address-significance table (then
    /// the host's text says `.addrsig`).
    pub fn has_address_significance(&self) -> bool {
        self.address_significance
    }
}

/// The groups of `elf` that hold a DWARF type unit, as LLVM's code
/// generator writes one: named by a local symbol (the type's signature, in
/// decimal, which the assembler makes), its members one `.debug_info`
/// (DWARF 5) or `.debug_types` (DWARF 4) and its relocations.
fn type_unit_groups(elf: &ElfObject<'_>) -> Result<Vec<crate::elf_object::Group>, String> {
    let mut found = Vec::new();
    for group in elf.groups()? {
        if elf.symbol(group.signature)?.st_bind() != elf::STB_LOCAL {
            continue;
        }
        let named = elf.symbol_name(group.signature)?;
        if named.is_empty() || !named.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let mut units = 0;
        let mut others = 0;
        for &member in &group.members {
            let header = elf.section(member)?;
            match (elf.section_name(header)?.as_str(), header.sh_type(elf.endian)) {
                (".debug_info" | ".debug_types", elf::SHT_PROGBITS) => units += 1,
                (".rela.debug_info" | ".rela.debug_types", elf::SHT_RELA) => {}
                _ => others += 1,
            }
        }
        if units == 1 && others == 0 {
            found.push(group);
        }
    }
    Ok(found)
}

/// Whether a section is a debug string section whose strings the pool
/// holds: DWARF's strings (`.debug_str`, `.debug_line_str`), as LLVM
/// writes them: mergeable NUL-ended single bytes, unaligned, in no group,
/// no other flag, as the pool's directive states them. (It must also have
/// no relocations of its own.)
fn is_debug_strings(name: &str, header: &SectionHeader) -> bool {
    let endian = object::LittleEndian;
    name.starts_with(".debug")
        && header.sh_type(endian) == elf::SHT_PROGBITS
        && header.sh_flags(endian) == (elf::SHF_MERGE | elf::SHF_STRINGS) as u64
        && header.sh_entsize(endian) <= 1
        && header.sh_addralign(endian) <= 1
}

/// Where each NUL-ended string of `bytes` starts; `None` if the last one
/// has no NUL.
fn string_starts(bytes: &[u8]) -> Option<Vec<u64>> {
    if bytes.last().is_some_and(|&b| b != 0) {
        return None;
    }
    let mut starts = Vec::new();
    let mut at = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0 {
            starts.push(at);
            at = i as u64 + 1;
        }
    }
    Some(starts)
}

/// What the transcript of one part leaves out, renames or reads from the
/// pool (see the module's header).
#[derive(Debug, Default)]
pub struct PartDecisions {
    /// Sections another part's copy stands for: not transcribed.
    pub dropped_sections: BTreeSet<usize>,
    /// Symbols it defines that another part's definition stands for: stated
    /// as references.
    pub defined_elsewhere: HashSet<String>,
    /// Its local symbols another part defines too: named `name.mtpcK`.
    pub renamed_locals: HashSet<String>,
    /// Its debug string sections, by index: where their strings are in
    /// the pool.
    pub pooled: HashMap<usize, PooledStrings>,
    /// The `.comment` strings an earlier part states: it does not.
    pub idents_stated_before: HashSet<String>,
    /// Promoted locals local again in the host's text, by their promoted
    /// name: the symbol stock's object has for each (the same for every
    /// part).
    pub demoted: Arc<HashMap<String, String>>,
    /// The sections of their own (`-ffunction-sections`,
    /// `-fdata-sections`: `.text.NAME.mtpc.HASH`) named after them again
    /// (`.text.NAME`), by name.
    pub renamed_sections: Arc<HashMap<String, String>>,
    /// Where each of them is defined, by promoted name: the section's name
    /// in the host's text (in no group). A call to one from that
    /// section, in any part, is resolved by the host's assembler, as
    /// stock's resolves it (see `object_transcript`).
    pub demoted_sections: Arc<HashMap<String, String>>,
}

impl PartDecisions {
    /// What local symbol `name` of part `part` is called in the host's text
    /// if not `name`: a private label (`.L...`) is the part's own, and a
    /// local another part defines too is renamed (both as `asm_merge`
    /// renames them).
    pub fn local_name(&self, name: &str, part: usize) -> Option<String> {
        match name.strip_prefix(".L") {
            Some(rest) => Some(format!(".Lmtpc{part}.{rest}")),
            None => self.renamed_locals.contains(name).then(|| format!("{name}.mtpc{part}")),
        }
    }
}

/// Where the strings of one part's debug string section are in a pool.
#[derive(Debug, Default)]
pub struct PooledStrings {
    /// The pool's number (see [`Pools::label`]).
    pub pool: usize,
    /// Each string's offset in the part's section, ascending, and in the pool.
    starts: Vec<u64>,
    pooled_at: Vec<u64>,
    /// The section's size.
    end: u64,
}

impl PooledStrings {
    /// Where offset `offset` of the part's section is in the pool: in the
    /// same string, at the same distance from its start.
    pub fn pooled_offset(&self, offset: u64) -> Option<u64> {
        let i = self.starts.partition_point(|&s| s <= offset).checked_sub(1)?;
        let next = self.starts.get(i + 1).copied().unwrap_or(self.end);
        (offset < next).then(|| self.pooled_at[i] + (offset - self.starts[i]))
    }
}

/// The strings of one debug string section, each once, in the order the
/// parts first hold them.
#[derive(Debug, PartialEq, Eq)]
pub struct StringPool {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The pools of the parts' debug string sections, as the host's text holds
/// them before the first part: each pool's section, its label, its bytes
/// (from one file, the pools one after another). Each pool is the first
/// thing in a section of its own name, which the transcripts name a string
/// of the pool by (the section plus the string's offset in the pool).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pools(pub Vec<StringPool>);

impl Pools {
    /// The label at pool `k`'s start.
    pub fn label(k: usize) -> String {
        format!(".Lmtpc.pool{k}")
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|p| p.bytes.is_empty())
    }

    /// The pools' bytes, one after another (what [`Pools::text`] reads).
    pub fn bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|p| p.bytes.iter().copied()).collect()
    }

    /// The pools as the host's text holds them, their bytes read from the
    /// file at `path` (which holds [`Pools::bytes`]).
    pub fn text(&self, path: &str) -> String {
        let mut out = String::new();
        let mut at = 0;
        for (k, pool) in self.0.iter().enumerate() {
            let _ = writeln!(out, "{}\n{}:", pool_directive(pool), Pools::label(k));
            if !pool.bytes.is_empty() {
                let _ = writeln!(out, "\t.incbin \"{path}\", {at}, {}", pool.bytes.len());
            }
            at += pool.bytes.len();
        }
        out
    }

    /// How many `.incbin` lines [`Pools::text`] writes.
    pub fn files_read(&self) -> usize {
        self.0.iter().filter(|p| !p.bytes.is_empty()).count()
    }

    /// What stands for the pools where one part's transcript is checked
    /// alone: the same sections, labels and sizes.
    pub fn stand_in(&self) -> String {
        let mut out = String::new();
        for (k, pool) in self.0.iter().enumerate() {
            let _ = writeln!(out, "{}\n{}:\n\t.zero {}", pool_directive(pool), Pools::label(k), pool.bytes.len());
        }
        out
    }
}

/// A pool's section, as LLVM declares a debug string section.
fn pool_directive(pool: &StringPool) -> String {
    format!("\t.section {},\"MS\",@progbits,1", pool.name)
}

/// What the parts' transcripts are made with.
#[derive(Debug, Default)]
pub struct Decisions {
    pub parts: Vec<PartDecisions>,
    pub pools: Pools,
}

/// Decides, for parts `objects` (in part order) read as `facts`, what each
/// part's transcript leaves out, renames and reads from the pools; and
/// which of the module's locals the split promoted (`promoted`: by
/// promoted name, the symbol stock's object has for each) are local
/// again. `Err` says why the parts cannot be joined (a group's
/// copies or a weak object's that differ).
pub fn decide(objects: &[&[u8]], facts: &[PartFacts], promoted: &HashMap<String, String>) -> Result<Decisions, String> {
    let elves = objects.iter().map(|o| ElfObject::parse(o)).collect::<Result<Vec<_>, String>>()?;
    let mut parts: Vec<PartDecisions> = (0..facts.len()).map(|_| PartDecisions::default()).collect();
    same_frame_sections(facts)?;
    drop_repeated_group_sections(&elves, facts, &mut parts)?;
    keep_type_units_once(facts, &mut parts);
    keep_repeated_weak_objects_once(&elves, facts, &mut parts)?;
    rename_colliding_locals(facts, &mut parts);
    let made_local = promoted_locals_made_local(facts, &parts, promoted);
    let demoted = Arc::new(made_local.demoted);
    let renamed_sections = Arc::new(made_local.renamed_sections);
    let demoted_sections = Arc::new(made_local.defined_in);
    for part in &mut parts {
        part.demoted = demoted.clone();
        part.renamed_sections = renamed_sections.clone();
        part.demoted_sections = demoted_sections.clone();
    }
    written_once_by_name(facts)?;
    let pools = pool_debug_strings(&elves, facts, &mut parts)?;
    let mut stated: HashSet<String> = HashSet::new();
    for (part, f) in parts.iter_mut().zip(facts) {
        part.idents_stated_before = stated.clone();
        stated.extend(f.idents.iter().cloned());
    }
    Ok(Decisions { parts, pools })
}

/// Every part that has call frame information writes it to the same
/// sections (`.eh_frame`, `.debug_frame` or both): the code generator
/// chooses them for the whole module, and a part that chose otherwise (one
/// whose functions neither throw nor ask for unwind tables, beside parts
/// whose functions do) would leave its functions without the `.eh_frame`
/// entries stock's object gives them.
fn same_frame_sections(facts: &[PartFacts]) -> Result<(), String> {
    let frames = |f: &PartFacts| {
        let has = |name: &str| f.sections.iter().any(|s| s.name == name);
        let sections: Vec<&str> = [".eh_frame", ".debug_frame"].into_iter().filter(|&name| has(name)).collect();
        (!sections.is_empty()).then(|| sections.join(" and "))
    };
    let mut parts = facts.iter().enumerate().filter_map(|(k, f)| frames(f).map(|s| (k, s)));
    let Some((first, sections)) = parts.next() else {
        return Ok(());
    };
    match parts.find(|(_, other)| *other != sections) {
        Some((k, other)) => Err(format!("parts {first} and {k} write call frame information to different sections ({sections}; {other})")),
        None => Ok(()),
    }
}

/// Sections of a group that an earlier part wrote: dropped, if the same.
fn drop_repeated_group_sections(elves: &[ElfObject<'_>], facts: &[PartFacts], parts: &mut [PartDecisions]) -> Result<(), String> {
    // (group, section name) -> the part and section index kept.
    let mut kept: HashMap<(&str, &str), (usize, usize)> = HashMap::new();
    for (k, f) in facts.iter().enumerate() {
        for (index, section) in f.sections.iter().enumerate() {
            let Some(group) = section.group.as_deref() else { continue };
            // A member's relocations go with it (compared with it).
            if matches!(section.sh_type, elf::SHT_RELA | elf::SHT_REL) {
                continue;
            }
            match kept.get(&(group, section.name.as_str())) {
                None => {
                    kept.insert((group, section.name.as_str()), (k, index));
                }
                Some(&(first, _)) if first == k => {
                    // Sections of one name told apart by `,unique,N`: which
                    // copy of another part's stands for which is not known.
                    return Err(format!("part {k} writes two sections {} in group {group}", section.name));
                }
                Some(&(first, first_index)) => {
                    let theirs = SectionContent::of_section(&elves[first], &facts[first], first_index)?;
                    let mine = SectionContent::of_section(&elves[k], f, index)?;
                    if theirs != mine {
                        return Err(format!(
                            "section {} of group {group} differs between parts {first} and {k}",
                            section.name
                        ));
                    }
                    parts[k].dropped_sections.insert(index);
                }
            }
        }
    }
    // What a dropped copy defines is the kept copy's (the same symbols: they
    // are part of what was compared).
    for (k, f) in facts.iter().enumerate() {
        for symbol in f.symbols.iter().filter(|s| s.is_named() && s.binding != elf::STB_LOCAL) {
            if symbol.section.is_some_and(|s| parts[k].dropped_sections.contains(&s)) {
                parts[k].defined_elsewhere.insert(symbol.name.clone());
            }
        }
    }
    Ok(())
}

/// DWARF type units an earlier part wrote: dropped (see the module's
/// comment), with their relocations.
fn keep_type_units_once(facts: &[PartFacts], parts: &mut [PartDecisions]) {
    let mut written: HashSet<&str> = HashSet::new();
    for (k, f) in facts.iter().enumerate() {
        for (index, section) in f.sections.iter().enumerate() {
            if section.type_unit.as_deref().is_some_and(|signature| written.contains(signature)) {
                parts[k].dropped_sections.insert(index);
            }
        }
        written.extend(f.type_units.iter().map(String::as_str));
    }
}

/// Weak data objects outside any group that several parts define: the
/// first part's definition stands, if every copy is the same.
fn keep_repeated_weak_objects_once(elves: &[ElfObject<'_>], facts: &[PartFacts], parts: &mut [PartDecisions]) -> Result<(), String> {
    let mut first_definition: HashMap<&str, (usize, usize)> = HashMap::new();
    for (k, f) in facts.iter().enumerate() {
        for (index, symbol) in f.symbols.iter().enumerate() {
            let Some(section) = symbol.section else { continue };
            let weak_object = symbol.binding == elf::STB_WEAK && symbol.st_type == elf::STT_OBJECT && symbol.is_named();
            if !weak_object || f.sections.get(section).is_none_or(|s| s.group.is_some()) {
                continue;
            }
            match first_definition.get(symbol.name.as_str()) {
                None => {
                    first_definition.insert(&symbol.name, (k, index));
                }
                Some(&(first, first_index)) => {
                    let theirs = SectionContent::of_symbol(&elves[first], &facts[first], first_index)?;
                    let mine = SectionContent::of_symbol(&elves[k], f, index)?;
                    if theirs != mine {
                        return Err(format!("weak object {} differs between parts {first} and {k}", symbol.name));
                    }
                    parts[k].defined_elsewhere.insert(symbol.name.clone());
                }
            }
        }
    }
    Ok(())
}

/// Groups whose signature no symbol of their part defines (the assembler
/// makes one in the group: C++ constructors and destructors of an explicit
/// instantiation, `C5`/`D5`): the host's assembler names them alike, so
/// they cannot be told apart, and a part's copy is not compared with
/// another's: each must be written by one part.
fn written_once_by_name(facts: &[PartFacts]) -> Result<(), String> {
    let mut written_by: HashMap<&str, usize> = HashMap::new();
    for (k, f) in facts.iter().enumerate() {
        for symbol in f.symbols.iter().filter(|s| s.names_a_group && !f.type_units.contains(&s.name)) {
            if let Some(first) = written_by.insert(&symbol.name, k).filter(|&first| first != k) {
                return Err(format!("group {} is written by parts {first} and {k}", symbol.name));
            }
        }
    }
    Ok(())
}

/// Local symbols that more than one part defines (in the sections it
/// keeps) are renamed in each of those parts (private labels, which every
/// part names its own, aside).
fn rename_colliding_locals(facts: &[PartFacts], parts: &mut [PartDecisions]) {
    let mut defined_by: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, f) in facts.iter().enumerate() {
        let names: BTreeSet<&str> = f
            .symbols
            .iter()
            .filter(|s| s.is_named() && s.binding == elf::STB_LOCAL && !s.name.starts_with(".L"))
            .filter(|s| s.section.is_none_or(|section| !parts[k].dropped_sections.contains(&section)))
            .filter(|s| !s.names_a_group)
            .map(|s| s.name.as_str())
            .collect();
        for name in names {
            defined_by.entry(name).or_default().push(k);
        }
    }
    for (name, by) in defined_by.into_iter().filter(|(_, by)| by.len() > 1) {
        for k in by {
            parts[k].renamed_locals.insert(name.to_string());
        }
    }
}

/// The relocation types the assembler states through a local symbol's
/// section (its offset in the addend) with the same meaning: plain and
/// PC-relative words, and `@GOTOFF`. A reference through the GOT or of a
/// symbol's size to a local would become one to its section.
const RELOCATED_THROUGH_A_SECTION: [u32; 11] = [
    elf::R_X86_64_64,
    elf::R_X86_64_PC32,
    elf::R_X86_64_PLT32,
    elf::R_X86_64_32,
    elf::R_X86_64_32S,
    elf::R_X86_64_16,
    elf::R_X86_64_PC16,
    elf::R_X86_64_8,
    elf::R_X86_64_PC8,
    elf::R_X86_64_PC64,
    elf::R_X86_64_GOTOFF64,
];

/// Which of the promoted locals (`promoted`: promoted name to stock's
/// symbol) the host's text makes local again under stock's name, by the
/// rule of [`LocalAgain`]: a definition counts where a part keeps it (the
/// other parts only name it), and is plain as a function or data object in
/// a section neither mergeable, nor thread-local, nor in a COMDAT group; a
/// part that relocates it
/// otherwise than through its section (`SymbolFacts::relocated_otherwise`)
/// refuses it. Also the sections named after those made local again, which
/// take their stock names (see [`sections_named_again`]), and the section
/// each is defined in.
fn promoted_locals_made_local(facts: &[PartFacts], parts: &[PartDecisions], promoted: &HashMap<String, String>) -> MadeLocal {
    if promoted.is_empty() {
        return MadeLocal::default();
    }
    const SPECIAL: u64 = (elf::SHF_MERGE | elf::SHF_TLS) as u64;
    let mut again = LocalAgain::new(promoted);
    // Each promoted local's section, where a part defines it in no group.
    let mut sections: HashMap<&str, &str> = HashMap::new();
    for (k, (f, part)) in facts.iter().zip(parts).enumerate() {
        for symbol in f.symbols.iter().filter(|s| s.is_named()) {
            match part.local_name(&symbol.name, k).filter(|_| symbol.binding == elf::STB_LOCAL) {
                Some(renamed) => again.name_taken(renamed),
                None => again.name_taken(symbol.name.clone()),
            };
            if symbol.relocated_otherwise {
                again.refuse(&symbol.name);
            }
            let kept = symbol.section.is_some_and(|section| !part.dropped_sections.contains(&section))
                && !part.defined_elsewhere.contains(&symbol.name);
            if kept && symbol.binding != elf::STB_LOCAL && again.is_promoted(&symbol.name) {
                let section = symbol.section.and_then(|section| f.sections.get(section));
                let plain = matches!(symbol.st_type, elf::STT_FUNC | elf::STT_OBJECT)
                    && section.is_some_and(|s| s.sh_flags & SPECIAL == 0 && s.group.is_none());
                again.definition(&symbol.name, plain);
                if let Some(section) = section {
                    sections.insert(&symbol.name, &section.name);
                }
            }
        }
    }
    let demoted = again.decide();
    let section_names = facts.iter().flat_map(|f| f.sections.iter().map(|s| s.name.as_str()));
    let renamed_sections = sections_named_again(section_names, promoted, &demoted);
    let defined_in = demoted
        .keys()
        .filter_map(|name| {
            let section = *sections.get(name.as_str())?;
            Some((name.clone(), renamed_sections.get(section).cloned().unwrap_or_else(|| section.to_string())))
        })
        .collect();
    MadeLocal { demoted, renamed_sections, defined_in }
}

/// The promoted locals made local again (see [`promoted_locals_made_local`]).
#[derive(Default)]
struct MadeLocal {
    /// Promoted name to stock's.
    demoted: HashMap<String, String>,
    /// The sections named after them: their names, to their stock names.
    renamed_sections: HashMap<String, String>,
    /// The section each is defined in, by its name in the host's text.
    defined_in: HashMap<String, String>,
}

/// The pools of the parts' debug string sections, and where each part's
/// strings are in them.
fn pool_debug_strings(elves: &[ElfObject<'_>], facts: &[PartFacts], parts: &mut [PartDecisions]) -> Result<Pools, String> {
    let mut pools: Vec<StringPool> = Vec::new();
    let mut offsets: Vec<HashMap<&[u8], u64>> = Vec::new();
    for (k, f) in facts.iter().enumerate() {
        for (index, section) in f.sections.iter().enumerate() {
            let Some(starts) = &section.string_starts else { continue };
            let pool = match pools.iter().position(|p| p.name == section.name) {
                Some(pool) => pool,
                None => {
                    pools.push(StringPool { name: section.name.clone(), bytes: Vec::new() });
                    offsets.push(HashMap::new());
                    pools.len() - 1
                }
            };
            let bytes = elves[k].section_bytes(index)?;
            let mut pooled_at = Vec::with_capacity(starts.len());
            for (i, &start) in starts.iter().enumerate() {
                let end = starts.get(i + 1).map_or(bytes.len(), |&next| next as usize);
                let string = &bytes[start as usize..end];
                let at = *offsets[pool].entry(string).or_insert_with(|| {
                    let at = pools[pool].bytes.len() as u64;
                    pools[pool].bytes.extend_from_slice(string);
                    at
                });
                pooled_at.push(at);
            }
            parts[k].pooled.insert(index, PooledStrings { pool, starts: starts.clone(), pooled_at, end: bytes.len() as u64 });
        }
    }
    Ok(Pools(pools))
}

/// What two parts' copies (of a group's section, or of a weak object) must
/// share to be the same: the section's attributes, the bytes, the
/// relocations by target, and the symbols defined there, each with what it
/// says of itself.
#[derive(Debug, PartialEq, Eq)]
struct SectionContent {
    /// Type, flags (the group's aside), alignment, entry size.
    attributes: (u32, u64, u64, u64),
    /// The bytes' extent (what a section without bytes, `.bss`, has).
    size: u64,
    bytes: Vec<u8>,
    /// (offset, type, target, addend), by offset.
    relocations: Vec<(u64, u32, String, i64)>,
    /// (name, binding, type, other, value, size) of each global or weak
    /// symbol defined there, by name.
    symbols: Vec<(String, u8, u8, u8, u64, u64)>,
}

impl SectionContent {
    /// Section `index`, whole, with every symbol defined in it (also one
    /// at its end, or in an empty section: a dropped copy's symbols all
    /// become references to the kept copy's).
    fn of_section(elf: &ElfObject<'_>, facts: &PartFacts, index: usize) -> Result<SectionContent, String> {
        let size = elf.section(index)?.sh_size(elf.endian);
        SectionContent::of(elf, facts, index, 0..size, |_, _| true)
    }

    /// The bytes symbol `symbol` spans in its section, with the symbols
    /// defined there and the symbol itself (also when it spans nothing).
    fn of_symbol(elf: &ElfObject<'_>, facts: &PartFacts, symbol: usize) -> Result<SectionContent, String> {
        let s = &facts.symbols[symbol];
        let section = s.section.ok_or_else(|| format!("symbol {} is not in a section", s.name))?;
        let end = s.value.checked_add(s.size).ok_or_else(|| format!("symbol {} ends past any section", s.name))?;
        let range = s.value..end;
        SectionContent::of(elf, facts, section, range.clone(), |i, other| i == symbol || range.contains(&other.value))
    }

    /// Section `index`'s content in `range`, with the global and weak
    /// symbols defined in the section that `compared` picks.
    fn of(
        elf: &ElfObject<'_>,
        facts: &PartFacts,
        index: usize,
        range: std::ops::Range<u64>,
        compared: impl Fn(usize, &SymbolFacts) -> bool,
    ) -> Result<SectionContent, String> {
        let endian = elf.endian;
        let header = elf.section(index)?;
        let attributes = (
            header.sh_type(endian),
            header.sh_flags(endian) & !(elf::SHF_GROUP as u64),
            header.sh_addralign(endian),
            header.sh_entsize(endian),
        );
        let name = |s: usize| facts.sections.get(s).map_or("?", |s| s.name.as_str());
        let bytes = match header.sh_type(endian) {
            elf::SHT_NOBITS => Vec::new(),
            _ => {
                let all = elf.section_bytes(index)?;
                let range = usize::try_from(range.start).ok().zip(usize::try_from(range.end).ok());
                range.and_then(|(start, end)| all.get(start..end)).ok_or("a symbol is past its section's end")?.to_vec()
            }
        };
        let mut relocations = Vec::new();
        for relocation_section in elf.relocation_sections(index) {
            if relocation_section.sh_type(endian) == elf::SHT_REL {
                return Err(format!("{} has implicit-addend relocations", name(index)));
            }
            for r in elf.relocations(relocation_section)?.into_iter().filter(|r| range.contains(&r.offset)) {
                let target = facts.symbols.get(r.symbol).ok_or("a relocation names no symbol")?;
                // Through a section: the same only within the same group.
                let target = match (target.st_type, target.section) {
                    (elf::STT_SECTION, Some(s)) => match facts.sections.get(s) {
                        Some(SectionFacts { group: Some(g), name, .. }) if facts.sections[index].group.as_ref() == Some(g) => format!("[{name}]"),
                        _ => return Err(format!("{} refers to its part's {} through the section", name(index), name(s))),
                    },
                    _ => target.name.clone(),
                };
                relocations.push((r.offset - range.start, r.r_type, target, r.addend));
            }
        }
        relocations.sort();
        let mut symbols: Vec<_> = facts
            .symbols
            .iter()
            .enumerate()
            .filter(|&(i, s)| s.section == Some(index) && s.is_named() && s.binding != elf::STB_LOCAL && compared(i, s))
            .map(|(i, s)| {
                let other = elf.symbol(i).map_or(0, |symbol| symbol.st_other);
                (s.name.clone(), s.binding, s.st_type, other, s.value - range.start, s.size)
            })
            .collect();
        symbols.sort();
        Ok(SectionContent { attributes, size: range.end - range.start, bytes, relocations, symbols })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object::write::{Comdat, Object, Relocation, StandardSection, Symbol, SymbolSection};
    use object::{Architecture, BinaryFormat, ComdatKind, Endianness, RelocationFlags, SectionKind, SymbolFlags, SymbolKind, SymbolScope};

    fn symbol(name: &str, kind: SymbolKind, scope: SymbolScope, section: SymbolSection, value: u64, size: u64) -> Symbol {
        Symbol { name: name.as_bytes().to_vec(), value, size, kind, scope, weak: false, section, flags: SymbolFlags::None }
    }

    fn reloc(offset: u64, symbol: object::write::SymbolId, addend: i64, r_type: u32) -> Relocation {
        Relocation { offset, symbol, addend, flags: RelocationFlags::Elf { r_type } }
    }

    fn object() -> Object<'static> {
        Object::new(BinaryFormat::Elf, Architecture::X86_64, Endianness::Little)
    }

    /// A part with the personality routine's reference in its group (as
    /// every C++ part with exceptions writes it), pointing at `target`,
    /// and a function `own`.
    fn part_with_personality_reference(target: &str, own: &str) -> Vec<u8> {
        let mut obj = object();
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xc3], 16);
        obj.add_symbol(symbol(own, SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 1));
        let data = obj.add_section(Vec::new(), b".data.DW.ref.__gxx_personality_v0".to_vec(), SectionKind::Data);
        obj.append_section_data(data, &[0; 8], 8);
        let mut key = symbol("DW.ref.__gxx_personality_v0", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(data), 0, 8);
        key.weak = true;
        let key = obj.add_symbol(key);
        let personality = obj.add_symbol(symbol(target, SymbolKind::Unknown, SymbolScope::Dynamic, SymbolSection::Undefined, 0, 0));
        obj.add_relocation(data, reloc(0, personality, 0, elf::R_X86_64_64)).unwrap();
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![data] });
        obj.write().unwrap()
    }

    fn decide_parts(objects: &[Vec<u8>]) -> Result<Decisions, String> {
        let facts: Vec<PartFacts> = objects.iter().map(|o| PartFacts::read(o).unwrap()).collect();
        let refs: Vec<&[u8]> = objects.iter().map(Vec::as_slice).collect();
        decide(&refs, &facts, &HashMap::new())
    }

    /// A part of function `own` whose call frame information is in
    /// `sections` (their bytes are not read).
    fn part_with_frame_sections(own: &str, sections: &[&str]) -> Vec<u8> {
        let mut obj = object();
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xc3], 16);
        obj.add_symbol(symbol(own, SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 1));
        for &name in sections {
            let kind = if name == ".eh_frame" { SectionKind::ReadOnlyData } else { SectionKind::Debug };
            let section = obj.add_section(Vec::new(), name.as_bytes().to_vec(), kind);
            obj.append_section_data(section, &[0; 8], 8);
        }
        obj.write().unwrap()
    }

    #[test]
    fn parts_that_write_call_frames_to_different_sections_are_refused() {
        // As the code generator writes a part of functions that may throw
        // and, with -g, one of functions that neither throw nor ask for
        // unwind tables.
        let (eh, debug_only) = (part_with_frame_sections("f", &[".eh_frame"]), part_with_frame_sections("g", &[".debug_frame"]));
        match decide_parts(&[eh.clone(), debug_only.clone()]) {
            Err(e) => assert!(e.contains("parts 0 and 1 write call frame information to different sections"), "{e}"),
            Ok(_) => panic!("parts with .eh_frame and with .debug_frame alone were joined"),
        }
        // With -fforce-dwarf-frame: both sections, in whichever order.
        let both = part_with_frame_sections("h", &[".eh_frame", ".debug_frame"]);
        assert!(decide_parts(&[both.clone(), debug_only]).is_err());
        assert!(decide_parts(&[both, part_with_frame_sections("i", &[".debug_frame", ".eh_frame"])]).is_ok());
        // Parts alike join, and so does a part without call frame information.
        assert!(decide_parts(&[eh, part_with_frame_sections("j", &[]), part_with_frame_sections("k", &[".eh_frame"])]).is_ok());
    }

    fn section_index(object: &[u8], name: &str) -> usize {
        PartFacts::read(object).unwrap().sections.iter().position(|s| s.name == name).unwrap()
    }

    #[test]
    fn a_group_section_several_parts_write_alike_is_kept_from_the_first() {
        let parts = [part_with_personality_reference("__gxx_personality_v0", "f"), part_with_personality_reference("__gxx_personality_v0", "g")];
        let d = decide_parts(&parts).unwrap();
        let section = section_index(&parts[1], ".data.DW.ref.__gxx_personality_v0");
        assert!(d.parts[0].dropped_sections.is_empty());
        assert_eq!(d.parts[1].dropped_sections, BTreeSet::from([section]));
        // What the dropped copy defined is the first's.
        assert!(d.parts[1].defined_elsewhere.contains("DW.ref.__gxx_personality_v0"));
        assert!(d.parts[0].defined_elsewhere.is_empty());
    }

    #[test]
    fn copies_of_a_group_section_that_differ_are_an_error() {
        let parts = [part_with_personality_reference("__gxx_personality_v0", "f"), part_with_personality_reference("other_personality", "g")];
        let e = decide_parts(&parts).unwrap_err();
        assert!(e.contains("section .data.DW.ref.__gxx_personality_v0 of group DW.ref.__gxx_personality_v0 differs between parts 0 and 1"), "{e}");
    }

    #[test]
    fn a_groups_sections_parts_write_apart_are_all_kept() {
        let part = |section: &str| {
            let mut obj = object();
            let text = obj.add_section(Vec::new(), section.as_bytes().to_vec(), SectionKind::Text);
            obj.append_section_data(text, &[0xc3], 1);
            let key = obj.add_symbol(symbol("k", SymbolKind::Text, SymbolScope::Linkage, SymbolSection::Section(text), 0, 1));
            obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![text] });
            obj.write().unwrap()
        };
        let d = decide_parts(&[part(".text.k"), part(".text.k.cold")]).unwrap();
        assert!(d.parts.iter().all(|p| p.dropped_sections.is_empty()));
    }

    /// A part with group `k`: a section `section` of `size` bytes (`.bss`
    /// if `bss`) defining `k`, and `also` defined at its end.
    fn part_with_group_section(section: &str, size: u64, bss: bool, also: Option<&str>) -> Vec<u8> {
        let mut obj = object();
        let kind = if bss { SectionKind::UninitializedData } else { SectionKind::Data };
        let data = obj.add_section(Vec::new(), section.as_bytes().to_vec(), kind);
        match bss {
            true => obj.append_section_bss(data, size, 8),
            false => obj.append_section_data(data, &vec![0; size as usize], 8),
        };
        let key = obj.add_symbol(symbol("k", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(data), 0, 8));
        if let Some(name) = also {
            obj.add_symbol(symbol(name, SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(data), size, 0));
        }
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![data] });
        obj.write().unwrap()
    }

    /// A part with a DWARF type unit of `signature` (`bytes` in a
    /// `.debug_info` of its group, named by a local symbol as the assembler
    /// names it) and function `own`; `section` names the group's member.
    fn part_with_type_unit(section: &str, signature: &str, bytes: &[u8], own: &str) -> Vec<u8> {
        let mut obj = object();
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xc3], 16);
        obj.add_symbol(symbol(own, SymbolKind::Text, SymbolScope::Dynamic, SymbolSection::Section(text), 0, 1));
        let unit = obj.add_section(Vec::new(), section.as_bytes().to_vec(), SectionKind::Debug);
        obj.append_section_data(unit, bytes, 1);
        let key = obj.add_symbol(symbol(signature, SymbolKind::Label, SymbolScope::Compilation, SymbolSection::Section(unit), 0, 0));
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![unit] });
        obj.write().unwrap()
    }

    #[test]
    fn a_type_unit_is_kept_from_the_first_part_that_writes_it() {
        // Part 1's copy of unit 123 differs (its abbreviations are its own):
        // dropped, unread; unit 456 is part 2's alone.
        let parts = [
            part_with_type_unit(".debug_info", "123", &[1, 2, 3], "f"),
            part_with_type_unit(".debug_info", "123", &[4, 5, 6, 7], "g"),
            part_with_type_unit(".debug_types", "456", &[8], "h"),
        ];
        let decisions = decide_parts(&parts).unwrap();
        let dropped: Vec<usize> = decisions.parts.iter().map(|p| p.dropped_sections.len()).collect();
        assert_eq!(dropped, [0, 1, 0]);
        let facts = PartFacts::read(&parts[1]).unwrap();
        let unit = *decisions.parts[1].dropped_sections.iter().next().unwrap();
        assert_eq!(facts.sections[unit].name, ".debug_info");
        assert_eq!(facts.sections[unit].type_unit.as_deref(), Some("123"));
    }

    #[test]
    fn a_group_named_by_a_number_that_holds_no_type_unit_is_none() {
        // Data, or a name that is not a signature: each part's own, as any
        // group its part names by a local symbol.
        for (section, signature) in [(".data.k", "123"), (".debug_info", "k123")] {
            let parts = [part_with_type_unit(section, signature, &[1], "f"), part_with_type_unit(section, signature, &[2], "g")];
            let facts = PartFacts::read(&parts[0]).unwrap();
            assert!(facts.type_units.is_empty(), "{section} {signature}");
            assert!(decide_parts(&parts).unwrap().parts.iter().all(|p| p.dropped_sections.is_empty()), "{section} {signature}");
        }
    }

    #[test]
    fn a_copy_that_defines_more_at_its_end_is_not_the_same() {
        // Dropped, its k_end would become a reference that no part defines.
        let parts = [part_with_group_section(".data.k", 8, false, None), part_with_group_section(".data.k", 8, false, Some("k_end"))];
        let e = decide_parts(&parts).unwrap_err();
        assert!(e.contains("section .data.k of group k differs between parts 0 and 1"), "{e}");
        let same = [part_with_group_section(".data.k", 8, false, Some("k_end")), part_with_group_section(".data.k", 8, false, Some("k_end"))];
        assert!(decide_parts(&same).unwrap().parts[1].defined_elsewhere.contains("k_end"));
    }

    #[test]
    fn bss_copies_of_other_sizes_are_not_the_same() {
        let parts = [part_with_group_section(".bss.k", 8, true, None), part_with_group_section(".bss.k", 16, true, None)];
        let e = decide_parts(&parts).unwrap_err();
        assert!(e.contains("section .bss.k of group k differs between parts 0 and 1"), "{e}");
        let same = [part_with_group_section(".bss.k", 16, true, None), part_with_group_section(".bss.k", 16, true, None)];
        assert_eq!(decide_parts(&same).unwrap().parts[1].dropped_sections.len(), 1);
    }

    #[test]
    fn two_sections_of_one_name_in_a_parts_group_are_an_error() {
        // `-fno-unique-section-names`: a variable and its guard both in
        // `.bss`, told apart by `,unique,N`.
        let mut obj = object();
        let first = obj.add_section(Vec::new(), b".bss".to_vec(), SectionKind::UninitializedData);
        obj.append_section_bss(first, 8, 8);
        let second = obj.add_section(Vec::new(), b".bss".to_vec(), SectionKind::UninitializedData);
        obj.append_section_bss(second, 8, 8);
        let key = obj.add_symbol(symbol("k", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(first), 0, 8));
        obj.add_symbol(symbol("guard", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(second), 0, 8));
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![first, second] });
        let e = decide_parts(&[obj.write().unwrap()]).unwrap_err();
        assert!(e.contains("part 0 writes two sections .bss in group k"), "{e}");
    }

    /// A part defining weak data object `name` holding `value`, and a local
    /// `helper`.
    fn part_with_weak_object(name: &str, value: u8) -> Vec<u8> {
        let mut obj = object();
        let data = obj.section_id(StandardSection::ReadOnlyData);
        obj.append_section_data(data, &[9, 9, 9, 9], 4);
        obj.append_section_data(data, &[value, 0, 0, 0], 4);
        let mut weak = symbol(name, SymbolKind::Data, SymbolScope::Dynamic, SymbolSection::Section(data), 4, 4);
        weak.weak = true;
        obj.add_symbol(weak);
        let text = obj.section_id(StandardSection::Text);
        obj.append_section_data(text, &[0xc3], 1);
        obj.add_symbol(symbol("helper", SymbolKind::Text, SymbolScope::Compilation, SymbolSection::Section(text), 0, 1));
        obj.write().unwrap()
    }

    #[test]
    fn a_weak_object_several_parts_define_alike_is_the_firsts() {
        let d = decide_parts(&[part_with_weak_object("__msan_track_origins", 1), part_with_weak_object("__msan_track_origins", 1)]).unwrap();
        assert!(d.parts[0].defined_elsewhere.is_empty());
        assert_eq!(d.parts[1].defined_elsewhere, HashSet::from(["__msan_track_origins".to_string()]));
        let e = decide_parts(&[part_with_weak_object("w", 1), part_with_weak_object("w", 2)]).unwrap_err();
        assert!(e.contains("weak object w differs between parts 0 and 1"), "{e}");
    }

    #[test]
    fn locals_several_parts_define_are_renamed_in_each() {
        let d = decide_parts(&[part_with_weak_object("a", 1), part_with_weak_object("b", 1), part_with_personality_reference("p", "f")]).unwrap();
        for k in 0..2 {
            assert_eq!(d.parts[k].renamed_locals, HashSet::from(["helper".to_string()]), "part {k}");
            assert_eq!(d.parts[k].local_name("helper", k), Some(format!("helper.mtpc{k}")));
        }
        assert!(d.parts[2].renamed_locals.is_empty());
        assert_eq!(d.parts[0].local_name("other", 0), None);
        // Private labels are every part's own.
        assert_eq!(d.parts[2].local_name(".L.str.3", 2), Some(".Lmtpc2..str.3".to_string()));
    }

    /// A part with `.debug_str` holding `strings`, each pointed at from
    /// `.debug_str_offsets` through the section (as DWARF 5's are).
    fn part_with_debug_strings(strings: &[&str]) -> Vec<u8> {
        part_with_debug_strings_flagged(strings, 0)
    }

    fn part_with_debug_strings_flagged(strings: &[&str], extra_flags: u64) -> Vec<u8> {
        let mut obj = object();
        let debug_str = obj.add_section(Vec::new(), b".debug_str".to_vec(), SectionKind::DebugString);
        obj.section_mut(debug_str).flags = object::SectionFlags::Elf { sh_flags: (elf::SHF_MERGE | elf::SHF_STRINGS) as u64 | extra_flags };
        let offsets = obj.add_section(Vec::new(), b".debug_str_offsets".to_vec(), SectionKind::Debug);
        let debug_str_symbol = obj.section_symbol(debug_str);
        for string in strings {
            let at = obj.append_section_data(debug_str, format!("{string}\0").as_bytes(), 1);
            let slot = obj.append_section_data(offsets, &[0; 4], 1);
            obj.add_relocation(offsets, reloc(slot, debug_str_symbol, at as i64, elf::R_X86_64_32)).unwrap();
        }
        obj.write().unwrap()
    }

    #[test]
    fn debug_strings_are_pooled_once_in_the_order_parts_hold_them() {
        let parts = [part_with_debug_strings(&["int", "char", "f"]), part_with_debug_strings(&["g", "char", "int", "unsigned"])];
        let d = decide_parts(&parts).unwrap();
        assert_eq!(d.pools, Pools(vec![StringPool { name: ".debug_str".into(), bytes: b"int\0char\0f\0g\0unsigned\0".to_vec() }]));
        let pooled = |k: usize| &d.parts[k].pooled[&section_index(&parts[k], ".debug_str")];
        // Part 0's strings where they were; part 1's where the pool has them.
        assert_eq!([0, 4, 9].map(|o| pooled(0).pooled_offset(o)), [Some(0), Some(4), Some(9)]);
        assert_eq!([0, 2, 7, 11].map(|o| pooled(1).pooled_offset(o)), [Some(11), Some(4), Some(0), Some(13)]);
        // Inside a string: the same distance from its start; past the last: none.
        assert_eq!(pooled(1).pooled_offset(12), Some(14));
        assert_eq!(pooled(1).pooled_offset(20), None);
        let text = d.pools.text("/proc/self/fd/7");
        assert_eq!(text, "\t.section .debug_str,\"MS\",@progbits,1\n.Lmtpc.pool0:\n\t.incbin \"/proc/self/fd/7\", 0, 22\n");
        assert_eq!(d.pools.stand_in(), "\t.section .debug_str,\"MS\",@progbits,1\n.Lmtpc.pool0:\n\t.zero 22\n");
        assert_eq!(d.pools.bytes(), b"int\0char\0f\0g\0unsigned\0");
        assert_eq!(d.pools.files_read(), 1);
    }

    #[test]
    fn string_sections_with_other_flags_are_left_whole() {
        let parts = [part_with_debug_strings(&["int"]), part_with_debug_strings_flagged(&["int"], elf::SHF_ALLOC as u64)];
        let d = decide_parts(&parts).unwrap();
        assert_eq!(d.pools.0.len(), 1);
        assert_eq!(d.parts[0].pooled.len(), 1);
        assert!(d.parts[1].pooled.is_empty(), "a string section the pool could not state alike is the part's own");
    }

    #[test]
    fn copies_of_a_group_section_that_define_other_symbols_are_an_error() {
        // The same bytes and relocations, but the later copy also defines
        // an alias of the group's data: dropping it would lose the alias.
        let mut obj = object();
        let data = obj.add_section(Vec::new(), b".data.DW.ref.__gxx_personality_v0".to_vec(), SectionKind::Data);
        obj.append_section_data(data, &[0; 8], 8);
        let mut key = symbol("DW.ref.__gxx_personality_v0", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(data), 0, 8);
        key.weak = true;
        let key = obj.add_symbol(key);
        let mut alias = symbol("alias", SymbolKind::Data, SymbolScope::Linkage, SymbolSection::Section(data), 0, 8);
        alias.weak = true;
        obj.add_symbol(alias);
        let personality = obj.add_symbol(symbol("__gxx_personality_v0", SymbolKind::Unknown, SymbolScope::Dynamic, SymbolSection::Undefined, 0, 0));
        obj.add_relocation(data, reloc(0, personality, 0, elf::R_X86_64_64)).unwrap();
        obj.add_comdat(Comdat { kind: ComdatKind::Any, symbol: key, sections: vec![data] });
        let e = decide_parts(&[part_with_personality_reference("__gxx_personality_v0", "f"), obj.write().unwrap()]).unwrap_err();
        assert!(e.contains("differs between parts 0 and 1"), "{e}");
    }

    #[test]
    fn string_starts_need_a_final_nul() {
        assert_eq!(string_starts(b"a\0bc\0\0"), Some(vec![0, 2, 5]));
        assert_eq!(string_starts(b""), Some(vec![]));
        assert_eq!(string_starts(b"a\0b"), None);
    }

    #[test]
    fn comment_strings_are_stated_once() {
        let part = |idents: &[&str]| {
            let mut obj = object();
            let comment = obj.add_section(Vec::new(), b".comment".to_vec(), SectionKind::OtherString);
            obj.append_section_data(comment, b"\0", 1);
            for ident in idents {
                obj.append_section_data(comment, format!("{ident}\0").as_bytes(), 1);
            }
            obj.write().unwrap()
        };
        let d = decide_parts(&[part(&["clang 16"]), part(&["clang 16", "inline asm's"]), part(&[])]).unwrap();
        assert!(d.parts[0].idents_stated_before.is_empty());
        assert_eq!(d.parts[1].idents_stated_before, HashSet::from(["clang 16".to_string()]));
        assert_eq!(d.parts[2].idents_stated_before, HashSet::from(["clang 16".to_string(), "inline asm's".to_string()]));
    }
}
