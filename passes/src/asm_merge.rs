//! Merges the assembly of several partitions into one text that assembles
//! into one object (ELF, AT&T syntax, as `llc` prints it).
//!
//! Each part was printed as if it were the only one in its object, so
//! concatenating them needs these fixes (see `../shared/design/HOST-FACTS.md`):
//! - private labels (`.L...`) are made unique per part;
//! - the DWARF file tables (`.file N ...`) become one table, written first:
//!   the parts number their files alike (see `FileTable`), so their `.loc`
//!   directives and debug information keep their numbers;
//! - a reference to a section's start by the section's name (the compile
//!   unit header's `.long .debug_abbrev`) assumes one unit per object: it
//!   becomes a label at the start of that part's contribution;
//! - a section of a COMDAT group that several parts emit (the code
//!   generator's `DW.ref.__gxx_personality_v0`) is kept from the first part
//!   only, and only if every part's copy is the same (private labels
//!   aside); so are the once-per-object directives (`.ident`, `.addrsig`).
//!   A group's sections are kept one by one: parts that emit different
//!   members of one group (C++ inline functions several partitions copy)
//!   give the object one group holding all of them;
//!   A part whose `.previous` or `.popsection` would return past a dropped
//!   switch into such a group is an error;
//! - what the host's own code generation writes for the module anyway is
//!   left to it: the file symbol (`.file "name"`) and the CET property note
//!   (`.note.gnu.property`) the code generator puts at the top of a text;
//! - local symbols the code generator numbers per object (such as
//!   `GCC_except_table1`) that several parts define are renamed per part,
//!   and so are the ids of `unique` sections; a section of a group that is
//!   no COMDAT (`nodeduplicate`, which ThinLTO backends give ASan's
//!   descriptors of internal globals) loses its id, which LLVM's printer
//!   writes and its parser refuses (a descriptor's linked-to symbol keeps it
//!   apart; two sections of a part told apart by the id alone are refused);
//! - a string of the DWARF string table (`.debug_str`) that several parts
//!   hold is written once, in a pool after the file table, and each part's
//!   label for it becomes an alias of the pooled one (the code generator
//!   writes one table per object, and stock's object holds each string once);
//! - MD5 checksums are dropped from the file table unless every entry has
//!   one (DWARF 5 needs all or none; the assembler would drop them anyway,
//!   with a warning);
//! - in a DWARF 4 table, a file in the compile unit's directory is named
//!   without it, as the code generator writes it into an object (the
//!   assembler reading the text does not know that directory).
//! - a local of the module the split promoted (`NAME.mtpc.HASH`, hidden)
//!   that one part defines is local again under its own name, as in stock's
//!   text (the rule of `local_again`, which the merge of the parts' objects
//!   follows too): its binding and visibility directives go, every part
//!   names it so, and the sections named after it are named after that
//!   name. A part that names another symbol so is an error.
//!
//! A weak data symbol that several parts define (one the pipeline makes in
//! every module, such as MemorySanitizer's `__msan_track_origins`) is kept
//! from the first, if every copy is the same; any other symbol that two parts define is an error (the
//! plan gives every definition one owner). The merged text is the file table
//! and the string pool, followed by one segment per part; that prefix and
//! any one segment assemble on their own,
//! which is how they are checked, in parallel. The output depends only on
//! the parts and their order.
//!
//! What the merge must know of every part before it merges any (its file
//! entries, local symbols, groups, weak objects and debug strings: a
//! `PartScan`) is read from each part alone, so that each part's scan can
//! run on its worker as soon as the part is compiled: the merge that waits
//! for all of them then reads each text once.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::Range;

use crate::local_again::{sections_named_again, LocalAgain};
use crate::{FastHashMap as HashMap, FastHashSet as HashSet};

/// One DWARF file-table entry: directory, name and the rest (checksum, source).
type FileKey = (String, String, String);

#[derive(Debug, PartialEq, Eq)]
pub struct MergeError(pub String);

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The merged text: the file table and the string pool, then one segment
/// per part.
#[derive(Debug, PartialEq, Eq)]
pub struct Merged<T> {
    pub text: T,
    /// The file table and the string pool: `text[..table]`.
    pub table: usize,
    /// Part K's segment: `text[segments[K].clone()]`.
    pub segments: Vec<Range<usize>>,
    /// The text says `.addrsig` (once, in the first part that did).
    pub address_significance: bool,
    /// Some part's sections are kept apart from same-named ones by `unique`
    /// ids (renumbered so that no two parts share one).
    pub unique_sections: bool,
}

impl Merged<String> {
    /// The same merged text, as bytes.
    pub fn into_bytes(self) -> Merged<Vec<u8>> {
        let Merged { text, table, segments, address_significance, unique_sections } = self;
        Merged { text: text.into_bytes(), table, segments, address_significance, unique_sections }
    }
}

impl Merged<Vec<u8>> {
    /// Part `k`'s segment with the file table before it: a text that
    /// assembles on its own (undefined symbols aside) exactly as that part
    /// of the whole text does.
    pub fn segment_with_table(&self, k: usize) -> Vec<u8> {
        let segment = &self.text[self.segments[k].clone()];
        let mut out = Vec::with_capacity(self.table + segment.len());
        out.extend_from_slice(&self.text[..self.table]);
        out.extend_from_slice(segment);
        out
    }
}

/// What the merge knows of the module's source files.
#[derive(Clone, Copy, Debug, Default)]
pub struct Files<'a> {
    /// The `.file` directives of the line table every part numbers its
    /// files by (the root first), which the parts do not repeat.
    pub table: Option<&'a str>,
    /// The directory of the module's compile unit, if it has debug info.
    pub compile_unit_directory: Option<&'a str>,
}

/// Merges parts given as bytes: assembly is ASCII, but string data may
/// hold any byte, so each byte is carried as the char of the same value
/// (ASCII text, the usual case, is its own string: no conversion).
pub fn merge_bytes<B: AsRef<[u8]>>(parts: &[B], files: Files<'_>) -> Result<Merged<Vec<u8>>, MergeError> {
    let scans: Vec<PartScan> = parts.iter().map(|p| PartScan::of_bytes(p.as_ref())).collect();
    merge_scanned_bytes(parts, &scans, files)
}

/// [`merge_bytes`], given each part's [`PartScan::of_bytes`].
pub fn merge_scanned_bytes<B: AsRef<[u8]>>(parts: &[B], scans: &[PartScan], files: Files<'_>) -> Result<Merged<Vec<u8>>, MergeError> {
    let texts = TextsToMerge::new(parts.iter().map(|p| p.as_ref().to_vec()).collect(), files);
    let plan = texts.plan(scans, files, &Promoted::new())?;
    let segments = (0..texts.len()).map(|k| plan.write_segment(k, texts.part(k), &scans[k])).collect::<Result<Vec<_>, _>>()?;
    Ok(texts.carried().into_bytes(plan.join(&segments)))
}

/// The parts' texts as the merge reads them: as they are where they, the
/// file table and the compile unit's directory are ASCII (as the code
/// generator prints assembly, string data escaped), else each byte carried
/// as the char of its value (a comment of the asm printer naming a byte of
/// data, with `-fverbose-asm`; inline assembly; a file name), and written
/// back so. Either way the merge is planned once ([`TextsToMerge::plan`])
/// and each part's segment is written apart ([`MergePlan::write_segment`]),
/// on any thread.
pub struct TextsToMerge {
    texts: Vec<String>,
    carried: Carried,
}

/// How a merged text's chars become its bytes (see [`TextsToMerge`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carried {
    Ascii,
    ByteForChar,
}

impl Carried {
    /// The merged text's bytes: each char's value.
    pub fn into_bytes(self, merged: Merged<String>) -> Merged<Vec<u8>> {
        if self == Carried::Ascii {
            return merged.into_bytes();
        }
        // Every char came from one byte, so it converts back exactly.
        let mut text = Vec::with_capacity(merged.text.len());
        let mut bytes = |range: Range<usize>| {
            let start = text.len();
            text.extend(merged.text[range].chars().map(|c| c as u8));
            start..text.len()
        };
        let table = bytes(0..merged.table).end;
        let segments = merged.segments.iter().map(|range| bytes(range.clone())).collect();
        Merged { text, table, segments, address_significance: merged.address_significance, unique_sections: merged.unique_sections }
    }
}

impl TextsToMerge {
    /// The parts of a module whose source files are `files`.
    pub fn new(parts: Vec<Vec<u8>>, files: Files<'_>) -> TextsToMerge {
        let ascii = files.table.is_none_or(str::is_ascii)
            && files.compile_unit_directory.is_none_or(str::is_ascii)
            && parts.iter().all(|p| p.is_ascii());
        match ascii {
            true => TextsToMerge {
                texts: parts.into_iter().map(|p| String::from_utf8(p).expect("ASCII is UTF-8")).collect(),
                carried: Carried::Ascii,
            },
            false => TextsToMerge {
                texts: parts.into_iter().map(|p| p.iter().map(|&b| char::from(b)).collect()).collect(),
                carried: Carried::ByteForChar,
            },
        }
    }

    /// How the merged text's chars become its bytes.
    pub fn carried(&self) -> Carried {
        self.carried
    }

    pub fn len(&self) -> usize {
        self.texts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Part `k`'s text.
    pub fn part(&self, k: usize) -> &str {
        &self.texts[k]
    }

    /// Each part's text's length.
    pub fn sizes(&self) -> Vec<usize> {
        self.texts.iter().map(String::len).collect()
    }

    /// Decides the merge (see [`plan_merge`]), `scans` from
    /// [`PartScan::of_bytes`] and `files` as given to [`TextsToMerge::new`];
    /// `promoted`: the module's promoted locals.
    pub fn plan(&self, scans: &[PartScan], files: Files<'_>, promoted: &Promoted) -> Result<MergePlan, MergeError> {
        let table = files.table.map(latin1);
        let directory = files.compile_unit_directory.map(latin1);
        let files = Files { table: table.as_deref(), compile_unit_directory: directory.as_deref() };
        match self.carried {
            Carried::Ascii => plan_merge(&self.texts, scans, files, promoted),
            Carried::ByteForChar => {
                // Named as the texts carry their bytes.
                let promoted = promoted.iter().map(|(from, to)| (latin1(from).into_owned(), latin1(to).into_owned())).collect();
                plan_merge(&self.texts, scans, files, &promoted)
            }
        }
    }
}

/// Rewrites a part's symbol assignments `name = expression` (how the code
/// generator of LLVM 22 writes them) as `.set name, expression` (as LLVM 16
/// and 19 write them), the one form the merge reads. Text without any is
/// left as it is.
pub fn write_assignments_as_set(asm: &mut Vec<u8>) {
    fn assignment(line: &[u8]) -> Option<(&[u8], &[u8])> {
        let name_end = match line.first()? {
            b'"' => line[1..].iter().position(|&b| b == b'"')? + 2,
            _ => line.iter().position(|&b| !is_symbol_char(b)).unwrap_or(line.len()),
        };
        let expression = line[name_end..].strip_prefix(b" = ")?;
        (name_end > 0 && !expression.is_empty()).then(|| (&line[..name_end], expression))
    }
    // One pass; the text is copied only from its first assignment on.
    let mut out: Option<Vec<u8>> = None;
    let mut start = 0;
    for line in asm.split(|&b| b == b'\n') {
        let end = start + line.len();
        match (assignment(line), out.as_mut()) {
            (Some((name, expression)), copy) => {
                let copy = match copy {
                    Some(copy) => copy,
                    None => out.insert([&asm[..start]].concat()),
                };
                copy.extend_from_slice(b".set ");
                copy.extend_from_slice(name);
                copy.extend_from_slice(b", ");
                copy.extend_from_slice(expression);
            }
            (None, Some(copy)) => copy.extend_from_slice(line),
            (None, None) => {}
        }
        if let Some(copy) = out.as_mut().filter(|_| end < asm.len()) {
            copy.push(b'\n');
        }
        start = end + 1;
    }
    if let Some(out) = out {
        *asm = out;
    }
}

/// `s` with each byte as the char of the same value (see `merge_bytes`);
/// borrowed if it is ASCII.
fn latin1(s: &str) -> std::borrow::Cow<'_, str> {
    match s.is_ascii() {
        true => std::borrow::Cow::Borrowed(s),
        false => std::borrow::Cow::Owned(s.bytes().map(char::from).collect()),
    }
}

/// Merges the parts, in order, into one assembly text.
pub fn merge<S: AsRef<str>>(parts: &[S]) -> Result<Merged<String>, MergeError> {
    merge_in(parts, Files::default())
}

/// Merges the parts of a module whose source files are `files`.
pub fn merge_in<S: AsRef<str>>(parts: &[S], files: Files<'_>) -> Result<Merged<String>, MergeError> {
    let scans: Vec<PartScan> = parts.iter().map(|p| PartScan::of(p.as_ref())).collect();
    merge_scanned(parts, &scans, files)
}

/// [`merge_in`], given each part's [`PartScan::of`].
fn merge_scanned<S: AsRef<str>>(parts: &[S], scans: &[PartScan], files: Files<'_>) -> Result<Merged<String>, MergeError> {
    merge_promoted(parts, scans, files, &Promoted::new())
}

/// [`merge_scanned`], with the module's promoted locals.
fn merge_promoted<S: AsRef<str>>(parts: &[S], scans: &[PartScan], files: Files<'_>, promoted: &Promoted) -> Result<Merged<String>, MergeError> {
    let plan = plan_merge(parts, scans, files, promoted)?;
    let segments = parts.iter().zip(scans).enumerate().map(|(k, (part, scan))| plan.write_segment(k, part.as_ref(), scan)).collect::<Result<Vec<_>, _>>()?;
    Ok(plan.join(&segments))
}

/// What the merge decides, part after part, before any segment is written
/// (see [`SegmentPlan`]): the file table and string pool the text begins
/// with, and how each part becomes its segment.
pub struct MergePlan {
    head: String,
    segments: Vec<SegmentPlan>,
    /// Local symbols several parts define: each part's are renamed.
    colliding_locals: HashSet<String>,
    /// Promoted locals made local again, and their stock names.
    local_again: LocalAgainNames,
    address_significance: bool,
    unique_sections: bool,
}

/// The promoted locals the merge makes local again (see `local_again`):
/// each promoted name with the stock name it takes, and each stock name,
/// which nothing else in the parts may name.
#[derive(Default)]
struct LocalAgainNames {
    names: HashMap<String, NameMadeLocal>,
}

enum NameMadeLocal {
    /// A promoted name, and the stock name it is written as.
    Promoted(String),
    /// A stock name.
    Stock,
}

impl LocalAgainNames {
    fn new(demoted: &std::collections::HashMap<String, String>) -> LocalAgainNames {
        let mut names: HashMap<String, NameMadeLocal> = HashMap::default();
        for (promoted, stock) in demoted {
            names.insert(promoted.clone(), NameMadeLocal::Promoted(stock.clone()));
            names.insert(stock.clone(), NameMadeLocal::Stock);
        }
        LocalAgainNames { names }
    }

    fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Whether `name` is a promoted local made local again.
    fn is_promoted(&self, name: &str) -> bool {
        matches!(self.names.get(name), Some(NameMadeLocal::Promoted(_)))
    }

    /// Copies `comment` to `out`, each promoted name in it (after a
    /// space or `@`) written as the stock name it takes.
    fn rename_in_comment(&self, comment: &str, out: &mut String) {
        // Most comments name none (`# %bb.0:`, `#DEBUG_VALUE: ...`), and
        // every promoted name holds this (`NAME.mtpc.HASH`).
        if !comment.contains(".mtpc.") {
            out.push_str(comment);
            return;
        }
        let mut copied = 0;
        let bytes = comment.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts = bytes[i] != b'@' && is_symbol_char(bytes[i]) && (i == 0 || !is_symbol_char(bytes[i - 1]) || bytes[i - 1] == b'@');
            if !starts {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i] != b'@' && is_symbol_char(bytes[i]) {
                i += 1;
            }
            if let Some(NameMadeLocal::Promoted(stock)) = self.names.get(&comment[start..i]) {
                out.push_str(&comment[copied..start]);
                out.push_str(stock);
                copied = i;
            }
        }
        out.push_str(&comment[copied..]);
    }

    /// What `token` becomes: `Ok(Some)` renamed, `Ok(None)` as it is,
    /// `Err` if it is the stock name of a local made local again, which
    /// would take its place in the merged text. `token`: a bare symbol,
    /// perhaps with a modifier (`f@PLT`), or (`quoted`) a quoted one's
    /// name; `names_a_symbol`: whether it is where a symbol is named.
    fn rename(&self, token: &str, quoted: bool, names_a_symbol: bool) -> Result<Option<String>, String> {
        let (name, modifier) = match quoted {
            true => (token, ""),
            false => token.split_at(token.find('@').unwrap_or(token.len())),
        };
        // Looked up only where it can be one (the writing of every
        // segment asks of every token): every promoted name holds
        // `.mtpc.`, and a symbol's name does not start with a digit.
        if name.contains(".mtpc.") {
            if let Some(NameMadeLocal::Promoted(stock)) = self.names.get(name) {
                return Ok(Some(format!("{stock}{modifier}")));
            }
        }
        let maybe_stock = names_a_symbol && !name.as_bytes().first().is_some_and(u8::is_ascii_digit);
        match maybe_stock && matches!(self.names.get(name), Some(NameMadeLocal::Stock)) {
            true => Err(format!("{name} is named, and is the name a promoted local takes again in the merged text")),
            false => Ok(None),
        }
    }
}

impl MergePlan {
    /// Part `k`'s segment, written from `part` and `scan`, the text and
    /// scan it was planned from: on any thread, side by side with the
    /// others'.
    pub fn write_segment(&self, k: usize, part: &str, scan: &PartScan) -> Result<String, MergeError> {
        let mut out = String::with_capacity(part.len() + part.len() / 8);
        let renames = Renames {
            label_prefix: &format!(".Lmtpc{k}."),
            section_starts: &scan.debug_sections,
            locals: &self.colliding_locals,
            local_again: &self.local_again,
            part: k,
        };
        self.segments[k].write(k, part, &renames, &mut out)?;
        Ok(out)
    }

    /// The merged text: the head, then every part's segment, in order.
    pub fn join<S: AsRef<str>>(&self, segments: &[S]) -> Merged<String> {
        let mut text = String::with_capacity(self.head.len() + segments.iter().map(|s| s.as_ref().len()).sum::<usize>());
        text.push_str(&self.head);
        let ranges = segments
            .iter()
            .map(|segment| {
                let start = text.len();
                text.push_str(segment.as_ref());
                start..text.len()
            })
            .collect();
        Merged {
            text,
            table: self.head.len(),
            segments: ranges,
            address_significance: self.address_significance,
            unique_sections: self.unique_sections,
        }
    }
}

/// Decides the merge of `parts`, in order: the file table, the string
/// pool, which promoted locals are local again (`promoted`: each promoted
/// name with stock's; see [`promoted_locals_made_local`]), and each part's
/// [`SegmentPlan`].
fn plan_merge<S: AsRef<str>>(parts: &[S], scans: &[PartScan], files: Files<'_>, promoted: &Promoted) -> Result<MergePlan, MergeError> {
    assert_eq!(parts.len(), scans.len(), "one scan per part");
    same_frame_sections(scans)?;
    let table = FileTable::build(scans, &files)?;
    let repeated = repeated_across_parts(scans);
    let mut head = String::new();
    for line in &table.lines {
        let _ = writeln!(head, "\t.file\t{line}");
    }
    if !repeated.strings.is_empty() {
        let _ = writeln!(head, "\t.section\t{DEBUG_STR_SECTION}");
        for (m, string) in repeated.strings.iter().enumerate() {
            let _ = writeln!(head, "{}:\n\t.asciz\t{string}", pooled_string_label(m));
        }
        head.push_str("\t.text\n");
    }
    let colliding_locals = colliding_local_symbols(scans);
    let (demoted, renamed_sections) = promoted_locals_made_local(scans, &colliding_locals, promoted);
    let mut state = MergeState {
        local_again: LocalAgainNames::new(&demoted),
        renamed_sections: renamed_sections.into_iter().collect(),
        colliding_locals,
        repeated_groups: repeated.groups,
        repeated_objects: repeated.objects,
        pooled_strings: repeated.strings.into_iter().enumerate().map(|(m, s)| (s, m)).collect(),
        ..Default::default()
    };
    let segments = parts
        .iter()
        .enumerate()
        .map(|(k, part)| state.merge_part(k, part.as_ref(), &scans[k].debug_sections, &table.numbers))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(MergePlan {
        head,
        segments,
        address_significance: state.once.contains(".addrsig"),
        unique_sections: state.unique_ids > 0,
        colliding_locals: state.colliding_locals,
        local_again: state.local_again,
    })
}

/// The module's promoted locals, by promoted name, each with the name
/// stock's object has for it (`SymbolRules::promoted_locals`).
pub type Promoted = std::collections::HashMap<String, String>;

/// Which promoted locals the merged text makes local again under their
/// stock names, by the rule of [`LocalAgain`] (every name a part defines
/// is taken, a colliding local under the name the merge gives it; a name
/// the parts only refer to is found when the segments are written:
/// [`LocalAgainNames::rename`]), and the sections named after them, which
/// take their stock names ([`sections_named_again`]).
fn promoted_locals_made_local(
    scans: &[PartScan],
    colliding_locals: &HashSet<String>,
    promoted: &Promoted,
) -> (std::collections::HashMap<String, String>, std::collections::HashMap<String, String>) {
    if promoted.is_empty() {
        return Default::default();
    }
    let mut again = LocalAgain::new(promoted);
    for (k, scan) in scans.iter().enumerate() {
        for (name, _) in &scan.locals {
            again.name_taken(match colliding_locals.contains(name) {
                true => format!("{name}.mtpc{k}"),
                false => name.clone(),
            });
        }
        for (name, plain) in &scan.globals {
            again.name_taken(name.clone());
            if again.is_promoted(name) {
                again.definition(name, *plain);
            }
        }
    }
    let demoted = again.decide();
    let renamed_sections = sections_named_again(scans.iter().flat_map(|s| s.sections.iter().map(String::as_str)), promoted, &demoted);
    (demoted, renamed_sections)
}

/// The merged DWARF file table. Every part numbers its files alike (the
/// shared table, `Files::table`, which the merge writes first, and files a
/// part adds beyond it): the parts' debug information names files by these
/// numbers, so a file two parts number differently is an error.
///
/// The root (`.file 0`, DWARF 5) is written last. The assembler takes an
/// entry parsed after the root for the root itself when it has the root's
/// name and checksum, and gives it no number: after the checksums are
/// dropped, an entry of a `#line "main.c"` (no checksum) would be taken for
/// the main file's root. Before `.file 0` the assembler is in DWARF 4 mode,
/// where it takes nothing for the root.
struct FileTable {
    /// The operands of each `.file` directive of the table, the root (`0 ...`) first.
    lines: Vec<String>,
    /// The file numbers `.loc` may name.
    numbers: HashSet<u32>,
}

/// One `.file N` directive: its number and operands.
fn file_directive(line: &str) -> Option<Result<(u32, &str), ()>> {
    let rest = strip_comment(line).trim().strip_prefix(".file")?.trim_start();
    if rest.starts_with('"') || rest.is_empty() {
        return None; // the object's file symbol: the host writes its own
    }
    let (num, tail) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len()));
    Some(num.parse().map(|n| (n, tail.trim())).map_err(|_| ()))
}

/// The `.file N` entries of a text, in order, up to the first that does
/// not parse.
#[derive(Debug, Default)]
struct FileEntries {
    /// Line index, number, operands and their (directory, name, rest).
    entries: Vec<(usize, u32, String, FileKey)>,
    /// The directive that does not parse: line index, and the line.
    bad: Option<(usize, String)>,
}

impl FileEntries {
    fn of(text: &str) -> FileEntries {
        let mut found = FileEntries::default();
        for (line_no, line) in text.lines().enumerate() {
            let Some(directive) = file_directive(line) else { continue };
            match directive.ok().and_then(|(n, tail)| Some((n, tail, file_key(tail)?))) {
                Some((n, tail, key)) => found.entries.push((line_no, n, tail.to_string(), key)),
                None => {
                    found.bad = Some((line_no, line.trim().to_string()));
                    break;
                }
            }
        }
        found
    }
}

impl FileTable {
    fn build(parts: &[PartScan], files: &Files<'_>) -> Result<FileTable, MergeError> {
        let shared = FileEntries::of(files.table.unwrap_or(""));
        let mut entries: BTreeMap<u32, (String, FileKey)> = BTreeMap::new();
        // `part`: the part the entries are in; `None`: the shared table.
        for (part, found) in std::iter::once((None, &shared)).chain(parts.iter().enumerate().map(|(k, p)| (Some(k), &p.files))) {
            let origin = || part.map_or("the shared file table".to_string(), |k| format!("part {k}"));
            for (line_no, n, tail, key) in &found.entries {
                match entries.get(n) {
                    Some((_, known)) if known == key => {}
                    Some((known, _)) => {
                        return Err(MergeError(format!(
                            "{}, line {}: file {n} is {tail}, but {known} elsewhere (the parts number their files differently)",
                            origin(),
                            line_no + 1
                        )))
                    }
                    None => {
                        entries.insert(*n, (tail.clone(), key.clone()));
                    }
                }
            }
            if let Some((line_no, line)) = &found.bad {
                return Err(MergeError(format!("{}, line {}: bad .file directive: {line}", origin(), line_no + 1)));
            }
        }
        // DWARF 5 needs a checksum for every file or for none; the assembler
        // drops them all otherwise (with a warning), as the code generator
        // does when it writes an object.
        let keep_md5 = entries.values().all(|(tail, _)| has_md5(tail));
        let dwarf5 = entries.contains_key(&0);
        let mut table = FileTable { lines: Vec::new(), numbers: entries.keys().copied().collect() };
        for (&n, (tail, _)) in entries.iter().filter(|(&n, _)| n != 0).chain(entries.get_key_value(&0)) {
            let mut tail = if keep_md5 { tail.clone() } else { without_md5(tail) };
            if !dwarf5 && file_key(&tail).is_some_and(|k| files.compile_unit_directory == Some(k.0.as_str())) {
                // DWARF 4: named as in an object, relative to the unit's directory.
                tail = tail_without_directory(&tail);
            }
            table.lines.push(format!("{n} {tail}"));
        }
        Ok(table)
    }
}

/// `"dir" "name" rest` as `"name" rest`.
fn tail_without_directory(tail: &str) -> String {
    let after_first = closing_quote(&tail[1..]).map_or(tail.len(), |i| i + 2);
    tail[after_first..].trim_start().to_string()
}

#[derive(Default)]
struct MergeState {
    /// Sections of COMDAT groups already emitted (see `comdat_key`).
    group_sections: HashSet<String>,
    /// Once-per-object directives already emitted.
    once: HashSet<String>,
    /// Local (non-`.L`) symbols that more than one part defines.
    colliding_locals: HashSet<String>,
    /// Symbols defined so far, and by which part.
    defined: HashMap<String, usize>,
    /// Global commons defined so far: their `.comm` lines.
    commons: HashMap<String, String>,
    /// The last `unique` section id given out.
    unique_ids: u32,
    /// Sections of COMDAT groups (see `comdat_key`) and weak data objects
    /// more than one part defines.
    repeated_groups: HashSet<String>,
    repeated_objects: HashSet<String>,
    /// Strings of the DWARF string table several parts hold: their number
    /// in the pool (see `pooled_string_label`).
    pooled_strings: HashMap<String, usize>,
    /// Their bodies as first kept ("section S", "object O"), normalized.
    kept_bodies: HashMap<String, Vec<String>>,
    /// Promoted locals made local again (see `local_again`), and the
    /// sections named after them, with the names they take.
    local_again: LocalAgainNames,
    renamed_sections: HashMap<String, String>,
}

/// Where a part defines a symbol.
#[derive(Clone, Copy)]
struct Defined<'t> {
    /// The COMDAT group of its section (see `comdat_key`).
    group: Option<&'t str>,
    /// A label in a section neither mergeable, nor thread-local, nor in a
    /// COMDAT group (see [`special_section`]).
    plain: bool,
}

/// Symbols defined (as labels, commons or assignments), each with where,
/// and symbols made global (`.globl`, `.weak`, a common not marked
/// `.local`), by one part.
fn defined_and_global(text: &str) -> (HashMap<&str, Defined<'_>>, HashSet<&str>) {
    let (mut defined, mut global, mut local) = (HashMap::default(), HashSet::default(), HashSet::default());
    let mut commons = Vec::new();
    let mut sections = SectionTracker::default();
    for line in text.lines() {
        let t = strip_comment(line).trim();
        let directive = t.split(|c: char| c.is_whitespace()).next().unwrap_or("");
        if is_section_switch(directive) {
            // Nothing is dropped here, so the tracker always follows.
            let _ = sections.switch(directive, t, |_| false);
        } else if let Some(name) = definition(t).filter(|n| !n.starts_with(".L")) {
            // Private labels are the part's own: never asked about here.
            // A common is in no section, so in no group.
            let sectionless = SECTIONLESS_DIRECTIVES.contains(&directive);
            let label = t.ends_with(':');
            let group = if sectionless { None } else { sections.current };
            defined.insert(name, Defined { group, plain: label && !sections.special });
            if directive == ".comm" {
                commons.push(name);
            }
        } else if matches!(directive, ".globl" | ".global" | ".weak") {
            global.insert(first_operand(t));
        } else if directive == ".local" {
            local.insert(first_operand(t));
        }
    }
    global.extend(commons.into_iter().filter(|c| !local.contains(c)));
    (defined, global)
}

/// The symbol a (comment-free, trimmed) line defines, if any: a label
/// (`name:`, `"name":`), a common (`.comm`, `.lcomm`) or an assignment
/// (`.set`, `.equ`, `.equiv`).
fn definition(line: &str) -> Option<&str> {
    if let Some(label) = line.strip_suffix(':') {
        if let Some(quoted) = label.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
            return Some(quoted);
        }
        return (!label.is_empty() && label.bytes().all(is_symbol_char)).then_some(label);
    }
    let directive = line.split(|c: char| c.is_whitespace()).next().unwrap_or("");
    matches!(directive, ".comm" | ".lcomm" | ".set" | ".equ" | ".equiv")
        .then(|| first_operand(line))
        .filter(|name| !name.is_empty())
}

/// Local symbols, other than private labels, that more than one part
/// defines. A local that every part defines in the same COMDAT group is not
/// one: the group is kept once, and every part refers to that copy.
fn colliding_local_symbols(parts: &[PartScan]) -> HashSet<String> {
    let mut seen: HashMap<&str, (usize, HashSet<Option<&str>>)> = HashMap::default();
    for part in parts {
        for (name, group) in &part.locals {
            let entry = seen.entry(name).or_default();
            entry.0 += 1;
            entry.1.insert(group.as_deref());
        }
    }
    seen.into_iter()
        .filter(|(_, (parts, groups))| *parts > 1 && (groups.len() > 1 || groups.contains(&None)))
        .map(|(name, _)| name.to_string())
        .collect()
}

/// What more than one part defines.
struct Repeated {
    /// Sections of COMDAT groups (see `comdat_key`).
    groups: HashSet<String>,
    /// Weak data objects.
    objects: HashSet<String>,
    /// Strings of the DWARF string table (as `.asciz` operands), in the
    /// order of their first appearance.
    strings: Vec<String>,
}

/// The DWARF string table's section, as the code generator switches to it.
const DEBUG_STR_SECTION: &str = ".debug_str,\"MS\",@progbits,1";

fn pooled_string_label(m: usize) -> String {
    format!(".Lmtpc.str{m}")
}

/// A string of the DWARF string table: a private label, then its `.asciz`.
/// Given the line after such a label, the string's operand.
fn string_after_label(line: &str) -> Option<&str> {
    strip_comment(line).trim().strip_prefix(".asciz").map(str::trim)
}

fn is_private_label(code: &str) -> bool {
    code.starts_with(".L") && code.ends_with(':') && code[..code.len() - 1].bytes().all(is_symbol_char)
}

fn repeated_across_parts(parts: &[PartScan]) -> Repeated {
    let (mut groups, mut objects): (HashMap<&str, usize>, HashMap<&str, usize>) = (HashMap::default(), HashMap::default());
    let mut strings: HashMap<&str, (usize, usize)> = HashMap::default();
    for (k, part) in parts.iter().enumerate() {
        for string in &part.debug_strings {
            let next = strings.len();
            let seen = strings.entry(string).or_insert((next, k));
            if seen.1 != k {
                seen.1 = usize::MAX;
            }
        }
        for g in &part.groups {
            *groups.entry(g).or_default() += 1;
        }
        for o in &part.weak_objects {
            *objects.entry(o).or_default() += 1;
        }
    }
    let several = |m: HashMap<&str, usize>| m.into_iter().filter(|&(_, n)| n > 1).map(|(name, _)| name.to_string()).collect();
    let mut shared: Vec<(usize, &str)> =
        strings.into_iter().filter(|&(_, (_, part))| part == usize::MAX).map(|(s, (first, _))| (first, s)).collect();
    shared.sort_unstable();
    Repeated { groups: several(groups), objects: several(objects), strings: shared.into_iter().map(|(_, s)| s.to_string()).collect() }
}

/// What the merge reads of one part before it merges any: read on the
/// part's own worker as soon as its text is printed, while the other parts
/// are still compiled, so that the merge itself, which waits for all of
/// them, has less to do.
#[derive(Debug, Default)]
pub struct PartScan {
    /// Its `.file N` entries.
    files: FileEntries,
    /// The local symbols it defines (neither private labels nor numbered),
    /// each with the COMDAT group its definition is in.
    locals: Vec<(String, Option<String>)>,
    /// The other symbols it defines (not numbered), each with whether it is
    /// defined plainly (see `Defined::plain`).
    globals: Vec<(String, bool)>,
    /// The sections it switches to, by name.
    sections: HashSet<String>,
    /// The sections of COMDAT groups it switches to (see `comdat_key`).
    groups: HashSet<String>,
    /// Its weak data objects.
    weak_objects: HashSet<String>,
    /// The strings of its DWARF string table (`.asciz` operands), each once,
    /// in the order of their first appearance.
    debug_strings: Vec<String>,
    /// The debug sections it switches to with `.section` (so that it has a
    /// contribution of its own: see `section_start_label`).
    debug_sections: HashSet<String>,
    /// Where its call frame information goes, if it has any (see
    /// [`frame_sections`]).
    frame_sections: Option<String>,
}

impl PartScan {
    fn of(text: &str) -> PartScan {
        let (defined, global) = defined_and_global(text);
        let (mut locals, mut globals) = (Vec::new(), Vec::new());
        for (name, at) in defined {
            if name.starts_with(".L") || name.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            match global.contains(name) {
                true => globals.push((name.to_string(), at.plain)),
                false => locals.push((name.to_string(), at.group.map(str::to_string))),
            }
        }
        let (mut sections, mut debug_sections) = (HashSet::default(), HashSet::default());
        let (mut groups, mut weak, mut typed) = (HashSet::default(), HashSet::default(), HashSet::default());
        let (mut debug_strings, mut strings_seen) = (Vec::new(), HashSet::default());
        let mut in_debug_str = false;
        let (mut cfi_sections, mut has_frames) = (None, false);
        let mut lines = text.lines().peekable();
        while let Some(line) = lines.next() {
            let t = strip_comment(line).trim();
            let directive = t.split(|c: char| c.is_whitespace()).next().unwrap_or("");
            if is_section_switch(directive) {
                in_debug_str = directive == ".section" && t[".section".len()..].trim_start() == DEBUG_STR_SECTION;
            }
            match directive {
                ".section" | ".pushsection" => {
                    groups.extend(comdat_key(t));
                    let name = section_name(t);
                    if directive == ".section" && name.starts_with(".debug_") {
                        debug_sections.insert(name.to_string());
                    }
                    sections.insert(name.to_string());
                }
                ".weak" => {
                    weak.insert(first_operand(t));
                }
                ".type" if t.ends_with("@object") => {
                    typed.insert(first_operand(t));
                }
                ".cfi_sections" => cfi_sections = Some(t),
                ".cfi_startproc" => has_frames = true,
                _ if in_debug_str && is_private_label(t) => {
                    if let Some(string) = lines.peek().and_then(|next| string_after_label(next)) {
                        if strings_seen.insert(string) {
                            debug_strings.push(string.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
        PartScan {
            files: FileEntries::of(text),
            locals,
            globals,
            sections,
            groups: groups.into_iter().map(str::to_string).collect(),
            weak_objects: weak.intersection(&typed).map(|o| o.to_string()).collect(),
            debug_strings,
            debug_sections,
            frame_sections: has_frames.then(|| frame_sections(cfi_sections)),
        }
    }

    /// The scan of a part given as bytes, each carried as the char of the
    /// same value (see `merge_bytes`).
    pub fn of_bytes(text: &[u8]) -> PartScan {
        match text.is_ascii() {
            true => PartScan::of(std::str::from_utf8(text).expect("ASCII is UTF-8")),
            false => PartScan::of(&text.iter().map(|&b| char::from(b)).collect::<String>()),
        }
    }
}

/// The sections a part's call frame information goes to, as its
/// `.cfi_sections` line (if any) says: its operands, sorted, or `.eh_frame`,
/// the assembler's default. The line applies to the whole object (the last
/// one the assembler reads decides for every function's entry), and the code
/// generator prints it only where it does not put the entries in `.eh_frame`
/// alone.
fn frame_sections(cfi_sections: Option<&str>) -> String {
    let Some(line) = cfi_sections else {
        return ".eh_frame".to_string();
    };
    let mut sections: Vec<&str> = line[".cfi_sections".len()..].split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    sections.sort_unstable();
    sections.join(", ")
}

/// Every part that has call frame information puts it in the same
/// sections: a part's `.cfi_sections` line, merged, would move every
/// other part's entries too (a part of functions that neither throw nor ask
/// for unwind tables would take every entry out of `.eh_frame`).
fn same_frame_sections(scans: &[PartScan]) -> Result<(), MergeError> {
    let mut parts = scans.iter().enumerate().filter_map(|(k, s)| s.frame_sections.as_deref().map(|f| (k, f)));
    let Some((first, sections)) = parts.next() else {
        return Ok(());
    };
    match parts.find(|&(_, other)| other != sections) {
        Some((k, other)) => Err(MergeError(format!(
            "parts {first} and {k} put call frame information in different sections ({sections}; {other}), and `.cfi_sections` applies to the whole object"
        ))),
        None => Ok(()),
    }
}

/// The operands of a `.file N` entry split after its quoted directory and
/// name: the rest is `[md5 0x...] [source "..."]`.
fn split_after_names(operands: &str) -> (&str, &str) {
    let mut at = 0;
    while operands[at..].starts_with('"') {
        match closing_quote(&operands[at + 1..]) {
            Some(end) => at += end + 2,
            None => break,
        }
        at += operands[at..].len() - operands[at..].trim_start().len();
    }
    operands.split_at(at)
}

fn has_md5(operands: &str) -> bool {
    split_after_names(operands).1.starts_with("md5 ")
}

/// The operands of a `.file N` entry without `md5 0x...`.
fn without_md5(operands: &str) -> String {
    let (names, rest) = split_after_names(operands);
    match rest.strip_prefix("md5 ") {
        Some(after) => {
            let after_sum = after.trim_start().split_once(char::is_whitespace).map_or("", |(_, r)| r.trim_start());
            format!("{names}{after_sum}").trim_end().to_string()
        }
        None => operands.to_string(),
    }
}

/// Where a part is in its text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Position {
    /// Before its first `.file`: what the code generator writes at the top.
    Top,
    /// In the CET property note at the top, which the host writes itself.
    TopPropertyNote,
    Body,
}

/// The section of a COMDAT group a part is in (see `comdat_key`), through
/// `.section`, `.pushsection`/`.popsection` and `.previous`, and whether the merged
/// text, which lacks the switches into groups an earlier part emitted, is
/// still in the same section as the part.
#[derive(Default)]
struct SectionTracker<'t> {
    current: Option<&'t str>,
    previous: Option<&'t str>,
    /// The current section (and the previous one) is mergeable,
    /// thread-local or in a COMDAT group (see [`special_section`]).
    special: bool,
    previous_special: bool,
    /// Saved by `.pushsection`.
    stack: Vec<Pushed<'t>>,
    /// Since the last `.pushsection`, a switch was dropped where the
    /// assembler would remember it (as the previous section), or kept
    /// inside a dropped push: `.previous`, and the `.popsection` of a
    /// dropped push, no longer return where the part expects.
    out_of_step: bool,
}

/// What `.popsection` restores.
#[derive(Default)]
struct Pushed<'t> {
    current: Option<&'t str>,
    previous: Option<&'t str>,
    special: bool,
    previous_special: bool,
    /// The push itself was dropped (into a group an earlier part emitted).
    dropped: bool,
    out_of_step: bool,
}

impl<'t> SectionTracker<'t> {
    /// Follows a switch; `dropped(key)` says whether a switch into that
    /// section of a group is dropped. Returns whether to keep the line, or why the merge
    /// cannot follow the part.
    fn switch(&mut self, directive: &str, line: &'t str, dropped: impl Fn(&str) -> bool) -> Result<bool, String> {
        let inside_dropped_push = self.stack.last().is_some_and(|p| p.dropped);
        let lost = || format!("`{directive}` after a switch into a COMDAT group an earlier part emitted (the merge keeps one copy and cannot follow this)");
        match directive {
            ".popsection" => {
                // A kept pop restores the pushed state whatever happened
                // since; a dropped one leaves the merged text where the
                // last kept switch put it.
                let pushed = self.stack.pop().unwrap_or_default();
                if self.out_of_step && pushed.dropped {
                    return Err(lost());
                }
                (self.current, self.previous, self.out_of_step) = (pushed.current, pushed.previous, pushed.out_of_step);
                (self.special, self.previous_special) = (pushed.special, pushed.previous_special);
                Ok(!pushed.dropped)
            }
            ".previous" => {
                if self.out_of_step || inside_dropped_push {
                    return Err(lost());
                }
                std::mem::swap(&mut self.current, &mut self.previous);
                std::mem::swap(&mut self.special, &mut self.previous_special);
                Ok(true)
            }
            _ => {
                let group = comdat_key(line).filter(|_| matches!(directive, ".section" | ".pushsection"));
                let drop = group.is_some_and(&dropped);
                if directive == ".pushsection" {
                    let pushed = Pushed {
                        current: self.current,
                        previous: self.previous,
                        special: self.special,
                        previous_special: self.previous_special,
                        dropped: drop,
                        out_of_step: self.out_of_step,
                    };
                    self.stack.push(pushed);
                    self.out_of_step = false;
                } else if drop || inside_dropped_push {
                    self.out_of_step = true;
                }
                (self.previous, self.current) = (self.current, group);
                (self.previous_special, self.special) = (self.special, special_section(line));
                Ok(!drop)
            }
        }
    }
}

/// Whether a section switch (`.section`, `.pushsection`, `.text`, ...)
/// goes to a section that is mergeable, thread-local or in a COMDAT group,
/// by its flags (or a thread-local section's name): one whose promoted
/// local is not made local again (see `local_again`).
fn special_section(line: &str) -> bool {
    if !is_section_directive(line) {
        return false; // `.text`, `.data`, `.bss`
    }
    let (name, after) = section_name_and_rest(line);
    let flags = after.trim_start().strip_prefix(',').map(str::trim_start).and_then(|f| f.strip_prefix('"')).and_then(|f| f.split('"').next());
    flags.is_some_and(|f| f.contains(['M', 'T', 'G'])) || name.starts_with(".tdata") || name.starts_with(".tbss")
}

/// The lines of a repeated COMDAT group or weak data object in one part.
/// Two parts' copies are the same if their lines are, with private labels
/// numbered by first use (those the copy defines apart from those it only
/// refers to, such as a function's constant pool, which the code generator
/// puts outside the group). Any one copy is a valid definition (the kept
/// copy refers to its own part's labels); the comparison makes sure that
/// what is dropped defined nothing the kept copy lacks.
#[derive(Default, Debug)]
struct Body {
    lines: Vec<String>,
}

impl Body {
    fn push(&mut self, line: &str) {
        self.lines.push(line.to_string());
    }

    fn extend(&mut self, line: Option<&str>) {
        self.lines.extend(line.map(str::to_string));
    }

    /// The lines with their private labels numbered: `.L#n` for those the
    /// copy defines, `.L@n` for those it only refers to.
    fn normalized(&self) -> Vec<String> {
        let defined: HashSet<&str> = self.lines.iter().filter_map(|l| definition(l)).filter(|n| n.starts_with(".L")).collect();
        let (mut own, mut outside): (HashMap<&str, usize>, HashMap<&str, usize>) = (HashMap::default(), HashMap::default());
        let mut out = Vec::with_capacity(self.lines.len());
        for line in &self.lines {
            let code = strip_comment(line);
            let bytes = code.as_bytes();
            let mut normal = String::with_capacity(code.len());
            let (mut i, mut copied) = (0, 0);
            while i < bytes.len() {
                let at_token = i == 0 || !is_symbol_char(bytes[i - 1]) || bytes[i - 1] == b'$';
                if bytes[i] == b'"' {
                    i += 1 + closing_quote(&code[i + 1..]).map_or(code.len() - i - 1, |e| e + 1);
                } else if at_token && code[i..].starts_with(".L") {
                    let end = code[i..].bytes().position(|b| !is_symbol_char(b)).map_or(code.len(), |e| i + e);
                    let label = &code[i..end];
                    let (numbers, mark) = if defined.contains(label) { (&mut own, '#') } else { (&mut outside, '@') };
                    let next = numbers.len();
                    let n = *numbers.entry(label).or_insert(next);
                    normal.push_str(&code[copied..i]);
                    let _ = write!(normal, ".L{mark}{n}");
                    (i, copied) = (end, end);
                } else {
                    i += 1;
                }
            }
            normal.push_str(&code[copied..]);
            out.push(normal.trim_end().to_string());
        }
        out
    }
}

impl MergeState {
    /// Decides how part `k`, `text`, which switches to the debug sections
    /// `section_starts`, becomes its segment; `files`: the numbers of the
    /// file table. What it decides depends on the parts before it; the
    /// segment is written apart ([`SegmentPlan::write`]).
    fn merge_part(&mut self, k: usize, text: &str, section_starts: &HashSet<String>, files: &HashSet<u32>) -> Result<SegmentPlan, MergeError> {
        let label_prefix = format!(".Lmtpc{k}.");
        let mut out = SegmentPlan::default();
        // Sections whose start label this part has placed.
        let mut started: HashSet<String> = HashSet::default();
        // COMDAT groups this part emits (recorded in `self` after the part,
        // since a part may switch to the same group more than once).
        let mut own_groups: HashSet<&str> = HashSet::default();
        let mut unique_ids: HashMap<u32, u32> = HashMap::default();
        // This part's sections of plain groups without their unique ids, and
        // those ids.
        let mut plain_group_ids: HashMap<String, u32> = HashMap::default();
        let mut sections = SectionTracker::default();
        // The bodies of this part's copies of groups and weak objects that
        // several parts define, to compare with the copy kept.
        let mut bodies: HashMap<String, Body> = HashMap::default();
        // Symbols defined in this part's repeated groups: their `.size`
        // measures labels that are gone.
        let mut skipped_symbols: HashSet<&str> = HashSet::default();
        // Private labels in what is dropped (repeated groups and objects):
        // nothing left may refer to them.
        let mut dropped_labels: HashSet<&str> = HashSet::default();
        let mut position = Position::Top;
        // Weak symbols and data objects this part declares, and the weak
        // data object whose definition is being read (`skip`: an earlier
        // part's copy is kept).
        let (mut weak, mut objects, mut hidden) = (HashSet::default(), HashSet::default(), HashSet::default());
        let mut object: Option<(&str, bool)> = None;
        // Symbols a LEB128 value measures, with their lines: the assembler
        // must resolve these in the part's segment alone.
        let mut measured: Vec<(usize, &str)> = Vec::new();
        // The section switch and alignment an object's label follows: part
        // of what two copies of the object must agree on.
        let (mut placed_in, mut aligned): (&str, Option<&str>) = ("", None);
        let mut in_debug_str = false;
        // The comment of a line dropped, for the next line kept.
        let mut carried_comment: Option<&str> = None;
        // What the current section's group is to the merge, worked out at
        // each switch rather than at each line: a group several parts
        // emit (its lines are compared), one an earlier part emitted (its
        // lines are dropped), or this part's own, not yet recorded.
        let (mut repeated_group, mut skipping_group, mut unrecorded_group): (Option<String>, bool, Option<&str>) = (None, false, None);
        let mut lines = text.lines().enumerate().peekable();
        while let Some((line_no, raw)) = lines.next() {
            let line = strip_comment(raw);
            let trimmed = line.trim_start();
            let directive = trimmed.split(|c: char| c.is_whitespace()).next().unwrap_or("");
            if is_section_switch(directive) {
                in_debug_str = directive == ".section" && trimmed[".section".len()..].trim() == DEBUG_STR_SECTION;
                if position == Position::TopPropertyNote {
                    position = Position::Top;
                }
                if position == Position::Top && directive == ".section" && section_name(trimmed) == ".note.gnu.property" {
                    position = Position::TopPropertyNote;
                }
                let keep = sections
                    .switch(directive, trimmed, |g| self.group_sections.contains(g))
                    .map_err(|why| MergeError(format!("part {k}, line {}: {why}", line_no + 1)))?;
                // A type unit's later copies go unread (`is_type_unit_key`).
                repeated_group = sections
                    .current
                    .filter(|g| self.repeated_groups.contains(*g) && !is_type_unit_key(g))
                    .map(|g| format!("section {g}"));
                skipping_group = sections.current.is_some_and(|g| self.group_sections.contains(g));
                unrecorded_group = sections.current.filter(|_| !skipping_group);
                object = None;
                (placed_in, aligned) = (trimmed.trim_end(), None);
                if !keep {
                    if let Some(key) = &repeated_group {
                        body_of(&mut bodies, key).push(&without_unique_id(trimmed.trim_end()));
                    }
                    continue;
                }
            }
            if position == Position::TopPropertyNote {
                continue;
            }
            let code = trimmed.trim_end();
            if in_debug_str && is_private_label(code) {
                let pooled = lines.peek().and_then(|(_, next)| string_after_label(next)).and_then(|s| self.pooled_strings.get(s));
                if let Some(&m) = pooled {
                    // The pool holds the string: this part's label names it there.
                    lines.next();
                    out.verbatim(format!("\t.set\t{label_prefix}{}, {}\n", &code[2..code.len() - 1], pooled_string_label(m)));
                    continue;
                }
            }
            let defines = definition(code);
            // Contents only: what a part says about symbols (an alias's
            // `.set`, a `.size` by labels or by bytes) may differ.
            let sectionless = SECTIONLESS_DIRECTIVES.contains(&directive);
            let content = !SYMBOL_DIRECTIVES.contains(&directive) && !sectionless;
            if let Some(key) = repeated_group.as_ref().filter(|_| content) {
                body_of(&mut bodies, key).push(&without_unique_id(code));
            }
            if let Some(g) = unrecorded_group.take() {
                own_groups.insert(g);
            }
            // A repeated group's contents go; directives about symbols (an
            // alias's `.set` may follow) and what does not belong to any
            // section (a common the code generator puts after the group)
            // stay.
            if skipping_group && content {
                if let Some(name) = defines {
                    skipped_symbols.insert(name);
                    if name.starts_with(".L") {
                        dropped_labels.insert(name);
                    }
                }
                continue;
            }
            if directive == ".size" && skipped_symbols.contains(first_operand(trimmed)) {
                continue;
            }
            if SYMBOL_BINDING_DIRECTIVES.contains(&directive) && self.local_again.is_promoted(first_operand(trimmed)) {
                // Local again, as in stock's object: its binding and
                // visibility go, in the part that defines it and in those
                // that name it. The asm printer's comment there (`# --
                // Begin function f`) goes to the next line kept, where
                // stock's text has it.
                let comment = raw[line.len()..].trim_end();
                if !comment.is_empty() {
                    carried_comment = Some(comment);
                }
                continue;
            }
            match directive {
                ".weak" => {
                    weak.insert(first_operand(trimmed));
                }
                ".hidden" => {
                    hidden.insert(first_operand(trimmed));
                }
                ".type" if code.ends_with("@object") => {
                    objects.insert(first_operand(trimmed));
                }
                _ => {}
            }
            if matches!(directive, ".p2align" | ".align" | ".balign") {
                aligned = Some(code);
            }
            let at = |what: String| MergeError(format!("part {k}, line {}: {what}", line_no + 1));
            if let Some(name) = defines {
                if !name.starts_with(".L") && !self.colliding_locals.contains(name) && !name.bytes().all(|b| b.is_ascii_digit()) {
                    let is_weak_object = weak.contains(name) && objects.contains(name);
                    match self.defined.get(name) {
                        Some(&first) if first != k && is_weak_object => object = Some((name, true)),
                        // The same hidden common in several parts (LLVM 22's
                        // AddressSanitizer makes its per-module flag in
                        // each): one, as a linker makes it of objects'. (The
                        // module's own commons are defined by one part.)
                        Some(&first) if first != k && hidden.contains(name) && self.commons.get(name).is_some_and(|c| c == code) => {
                            continue
                        }
                        Some(&first) if first != k => return Err(at(format!("{name} is defined by part {first} too"))),
                        _ => {
                            self.defined.insert(name.to_string(), k);
                            if directive == ".comm" && hidden.contains(name) {
                                self.commons.insert(name.to_string(), code.to_string());
                            }
                            if is_weak_object && self.repeated_objects.contains(name) {
                                object = Some((name, false));
                            }
                        }
                    }
                    if let Some((name, _)) = object.filter(|&(o, _)| o == name && self.repeated_objects.contains(o)) {
                        let body = bodies.entry(format!("object {name}")).or_default();
                        body.push(&without_unique_id(placed_in));
                        body.extend(aligned);
                    }
                }
                // An alignment belongs to the next label only.
                aligned = None;
            }
            if let Some((name, skip)) = object {
                if content && self.repeated_objects.contains(name) {
                    bodies.entry(format!("object {name}")).or_default().push(code);
                }
                if directive == ".size" && first_operand(trimmed) == name {
                    object = None;
                }
                if skip {
                    if let Some(label) = defines.filter(|l| l.starts_with(".L")) {
                        dropped_labels.insert(label);
                    }
                    continue;
                }
            }
            if matches!(directive, ".uleb128" | ".sleb128") {
                measured.extend(symbols_in(&trimmed[directive.len()..]).map(|name| (line_no, name)));
            }
            match directive {
                ".file" => {
                    position = Position::Body;
                    continue; // in the table, or the host's own file symbol
                }
                ".loc" => {
                    let rest = trimmed[".loc".len()..].trim_start();
                    let num = &rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len())];
                    let n: u32 = num.parse().map_err(|_| at(format!("bad .loc: {raw}")))?;
                    if !files.contains(&n) {
                        return Err(at(format!(".loc names file {n}, which no .file gives")));
                    }
                }
                ".ident" | ".addrsig" => {
                    if self.once.insert(trimmed.to_string()) {
                        out.verbatim(format!("{raw}\n"));
                    }
                    continue;
                }
                _ => {}
            }
            let mut rewritten = None;
            if matches!(directive, ".section" | ".pushsection") && !self.renamed_sections.is_empty() {
                rewritten = with_sections_renamed(raw, &self.renamed_sections);
            }
            if directive == ".section" && trimmed.contains(",unique,") {
                let line = rewritten.as_deref().unwrap_or(raw);
                rewritten = Some(match plain_group_section(line) {
                    Some((switch, id)) => {
                        // Without the id, two such sections alike but for it
                        // would be one.
                        if *plain_group_ids.entry(switch.clone()).or_insert(id) != id {
                            return Err(at(format!("two sections of one plain group told apart by their unique ids only: {raw}")));
                        }
                        switch
                    }
                    None => self.renumber_unique(line, &mut unique_ids).ok_or_else(|| at(format!("bad unique section id: {raw}")))?,
                });
            }
            if let Some(comment) = carried_comment.take() {
                let line = rewritten.take().unwrap_or_else(|| raw.to_string());
                rewritten = Some(match strip_comment(&line).len() == line.len() {
                    true => format!("{line}\t{comment}"),
                    false => line,
                });
            }
            match rewritten {
                Some(line) => out.pieces.push(Piece::Rewritten(line)),
                None => out.line(text, raw),
            }
            if directive == ".section" {
                let name = section_name(trimmed);
                if section_starts.contains(name) && started.insert(name.to_string()) {
                    out.verbatim(format!("{}:\n", section_start_label(k, name)));
                }
            }
        }
        // A LEB128's size is fixed when the text is laid out, and a symbol
        // it cannot resolve there is a fatal error, not a diagnostic: every
        // symbol it measures must be this part's own (private labels are).
        let foreign = measured.iter().find(|(_, name)| {
            !name.starts_with(".L") && !self.colliding_locals.contains(*name) && self.defined.get(*name) != Some(&k)
        });
        if let Some((line_no, name)) = foreign {
            return Err(MergeError(format!(
                "part {k}, line {}: a LEB128 value measures {name}, which the part does not define (its segment would not assemble alone)",
                line_no + 1
            )));
        }
        out.dropped_labels = dropped_labels.into_iter().map(str::to_string).collect();
        // What several parts define must be the same in each: one copy stands for all.
        let mut bodies: Vec<(String, Body)> = bodies.into_iter().collect();
        bodies.sort_by(|a, b| a.0.cmp(&b.0));
        for (what, body) in bodies {
            let body = body.normalized();
            match self.kept_bodies.get(&what) {
                Some(kept) if *kept != body => {
                    let what = what.strip_prefix("section ").map_or(what.clone(), describe_key);
                    return Err(MergeError(format!("part {k}: its copy of {what} differs from an earlier part's")));
                }
                Some(_) => {}
                None => {
                    self.kept_bodies.insert(what, body);
                }
            }
        }
        self.group_sections.extend(own_groups.into_iter().map(str::to_string));
        Ok(out)
    }

    /// `.section ...,unique,N` with N replaced by an id no other part uses.
    fn renumber_unique(&mut self, line: &str, ids: &mut HashMap<u32, u32>) -> Option<String> {
        let (operand, n) = unique_operand(line)?;
        let next = &mut self.unique_ids;
        let id = *ids.entry(n?).or_insert_with(|| {
            *next += 1;
            *next
        });
        Some(format!("{},unique,{id}{}", &line[..operand.start], &line[operand.end..]))
    }
}

/// The body kept under `key`, made empty the first time.
fn body_of<'b>(bodies: &'b mut HashMap<String, Body>, key: &str) -> &'b mut Body {
    if !bodies.contains_key(key) {
        bodies.insert(key.to_string(), Body::default());
    }
    bodies.get_mut(key).expect("just inserted")
}

/// A part's segment as the merge decided it, before it is written: which
/// of the part's lines it keeps, renamed, and what the merge writes itself.
/// Deciding is serial (each part's decisions depend on the parts before
/// it); writing, most of the merge's work, is each part's alone.
#[derive(Debug, Default)]
struct SegmentPlan {
    pieces: Vec<Piece>,
    /// The private labels of what the merge dropped (repeated groups and
    /// objects), which nothing kept may refer to.
    dropped_labels: HashSet<String>,
}

#[derive(Debug)]
enum Piece {
    /// Whole lines of the part's text (their bytes, `\n` between them),
    /// each written renamed and ended.
    Lines(Range<usize>),
    /// A line the merge rewrote, written renamed and ended.
    Rewritten(String),
    /// Text the merge writes as it is, ended.
    Verbatim(String),
}

impl SegmentPlan {
    /// Keeps `line`, a line of `text`: with the lines kept just before
    /// it, one piece.
    fn line(&mut self, text: &str, line: &str) {
        let start = line.as_ptr() as usize - text.as_ptr() as usize;
        let end = start + line.len();
        if let Some(Piece::Lines(lines)) = self.pieces.last_mut() {
            if lines.end + 1 == start && text.as_bytes()[lines.end] == b'\n' {
                lines.end = end;
                return;
            }
        }
        self.pieces.push(Piece::Lines(start..end));
    }

    fn verbatim(&mut self, text: String) {
        self.pieces.push(Piece::Verbatim(text));
    }

    /// Writes part `k`'s segment, its text `text` (the one it was decided
    /// on), into `out`, with `renames`. `Err` if what it keeps refers to a
    /// label it dropped, or names a symbol by the name a promoted local
    /// takes again.
    fn write(&self, k: usize, text: &str, renames: &Renames<'_>, out: &mut String) -> Result<(), MergeError> {
        let start = out.len();
        let at = |line: &str, why: String| MergeError(format!("part {k}: {why}: {}", line.trim()));
        for piece in &self.pieces {
            match piece {
                Piece::Lines(lines) => {
                    for line in text[lines.clone()].split('\n') {
                        rename_line(line, renames, out).map_err(|why| at(line, why))?;
                        out.push('\n');
                    }
                }
                Piece::Rewritten(line) => {
                    rename_line(line, renames, out).map_err(|why| at(line, why))?;
                    out.push('\n');
                }
                Piece::Verbatim(text) => out.push_str(text),
            }
        }
        match referenced_label(&out[start..], renames.label_prefix, &self.dropped_labels) {
            Some(label) => Err(MergeError(format!("part {k}: {label} is in a copy dropped for an earlier part's, and is referred to from outside it"))),
            None => Ok(()),
        }
    }
}

/// A label of `labels` (private labels of one part, `.Lname`) that `text`,
/// the part's merged lines, refers to (as `{prefix}name`), if any.
fn referenced_label<'l>(text: &str, prefix: &str, labels: &'l HashSet<String>) -> Option<&'l str> {
    if labels.is_empty() {
        return None;
    }
    let by_name: HashMap<&str, &'l str> = labels.iter().map(|l| (&l[2..], l.as_str())).collect();
    text.match_indices(prefix).find_map(|(at, _)| {
        let rest = &text[at + prefix.len()..];
        let name = &rest[..rest.bytes().position(|b| !is_symbol_char(b)).unwrap_or(rest.len())];
        by_name.get(name).copied()
    })
}

/// The symbols an expression names (not numbers, not `.`).
fn symbols_in(expression: &str) -> impl Iterator<Item = &str> {
    expression
        .split(|c: char| !is_symbol_char(c as u8) || !c.is_ascii())
        .filter(|t| !t.is_empty() && *t != "." && !t.as_bytes()[0].is_ascii_digit())
}

/// A switch to a section of a group that is no COMDAT (flag `G`, no
/// `comdat` after the group: a `nodeduplicate` COMDAT lowered to an ELF
/// group without `GRP_COMDAT`) that has a unique id: the switch without it,
/// and the id. LLVM's printer writes `...,GROUP,unique,N` and its parser
/// reads an operand after a group as its linkage ("Linkage must be
/// 'comdat'"); the assembler tells such sections apart by their group and
/// their linked-to symbol as well as by the id (the caller refuses two of a
/// part that only the id told apart).
fn plain_group_section(line: &str) -> Option<(String, u32)> {
    let (_, rest) = section_name_and_rest(line);
    let fields: Vec<&str> = rest.split(',').map(str::trim).collect();
    let flags = fields.get(1)?.trim_matches('"');
    if !flags.contains('G') || fields.contains(&"comdat") {
        return None;
    }
    let (_, id) = unique_operand(line)?;
    Some((without_unique_id(line).into_owned(), id?))
}

/// Where a section switch's `,unique,N` is (the last operand: a quoted name
/// may hold anything), and N if it is a number.
fn unique_operand(line: &str) -> Option<(Range<usize>, Option<u32>)> {
    let at = line.rfind(",unique,")?;
    let digits = &line[at + ",unique,".len()..];
    let end = at + ",unique,".len() + digits.find(|c: char| !c.is_ascii_digit()).unwrap_or(digits.len());
    Some((at..end, line[at + ",unique,".len()..end].parse().ok()))
}

/// A section switch without its `unique` id (which each part numbers itself).
fn without_unique_id(line: &str) -> std::borrow::Cow<'_, str> {
    match unique_operand(line) {
        Some((operand, _)) => std::borrow::Cow::Owned(format!("{}{}", &line[..operand.start], &line[operand.end..])),
        None => std::borrow::Cow::Borrowed(line),
    }
}

/// The first operand of a directive line (`.size f, 8` → `f`).
/// The first operand of a directive, unquoted if it is a quoted symbol
/// name (as `definition` gives a quoted label's name).
fn first_operand(line: &str) -> &str {
    let rest = line.split_once(|c: char| c.is_whitespace()).map_or("", |(_, r)| r).trim_start();
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next().unwrap_or("");
    }
    rest.split(',').next().unwrap_or("").trim()
}

/// Directives that put nothing into the current section (a profile's
/// call-graph edges, `.cg_profile`, follow a part's last function).
const SECTIONLESS_DIRECTIVES: &[&str] = &[".comm", ".lcomm", ".file", ".ident", ".addrsig", ".cg_profile"];

/// Directives that say something about a symbol, not the current section.
const SYMBOL_DIRECTIVES: &[&str] = &[
    ".set", ".equ", ".equiv", ".globl", ".global", ".weak", ".hidden", ".protected", ".internal", ".local", ".type",
    ".size", ".symver", ".addrsig_sym",
];

/// Directives that give a symbol its binding or visibility.
const SYMBOL_BINDING_DIRECTIVES: &[&str] = &[".globl", ".global", ".weak", ".hidden", ".protected", ".internal"];

/// A `.section` (or `.pushsection`) line with the sections `renamed` names
/// renamed: the section's own name, and a section it is linked to (the
/// `o` flag's operand: `.stack_sizes`, `.llvm_bb_addr_map`); `None` if it
/// names none. Names within quotes are left alone.
fn with_sections_renamed(line: &str, renamed: &HashMap<String, String>) -> Option<String> {
    let bytes = line.as_bytes();
    let (mut out, mut copied, mut i, mut in_string) = (String::new(), 0, 0, false);
    while i < bytes.len() {
        if bytes[i] == b'"' {
            in_string = !in_string;
            i += 1;
        } else if in_string || !is_symbol_char(bytes[i]) {
            i += 1;
        } else {
            let start = i;
            while i < bytes.len() && is_symbol_char(bytes[i]) {
                i += 1;
            }
            if let Some(name) = renamed.get(&line[start..i]) {
                out.push_str(&line[copied..start]);
                out.push_str(name);
                copied = i;
            }
        }
    }
    (copied > 0).then(|| out + &line[copied..])
}

fn is_section_switch(directive: &str) -> bool {
    matches!(directive, ".section" | ".text" | ".data" | ".bss" | ".pushsection" | ".popsection" | ".previous")
}

/// The section name of a `.section` (or `.pushsection`) directive.
fn section_name(line: &str) -> &str {
    section_name_and_rest(line).0
}

/// The section name of a `.section` (or `.pushsection`) directive, and the
/// rest of the line after it (a quoted name's closing quote left out).
fn section_name_and_rest(line: &str) -> (&str, &str) {
    let rest = line.trim_start();
    let rest = rest.strip_prefix(".section").or_else(|| rest.strip_prefix(".pushsection")).unwrap_or(rest).trim_start();
    match rest.strip_prefix('"') {
        Some(quoted) => quoted.split_once('"').unwrap_or((quoted, "")),
        None => rest.split_at(rest.find(|c: char| c == ',' || c.is_whitespace()).unwrap_or(rest.len())),
    }
}

/// What identifies a section of a COMDAT group: `name,"flagsG",@type,GROUP`
/// of `.section name,"flagsG",@type,GROUP,comdat[,unique,N]` (or
/// `.pushsection`); `None` for a section in no group.
fn comdat_key(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    let rest = rest.strip_prefix(".section").or_else(|| rest.strip_prefix(".pushsection"))?.trim_start();
    let mut fields = Vec::new();
    let mut offset = 0;
    for field in rest.split(',') {
        fields.push((offset, field));
        offset += field.len() + 1;
    }
    let at = fields.iter().position(|(_, f)| f.trim() == "comdat")?;
    if at < 4 {
        return None;
    }
    let (start, group) = fields[at - 1];
    Some(rest[..start + group.len()].trim_end())
}

/// Whether a `comdat_key` is a DWARF type unit's (`-fdebug-types-section`):
/// `.debug_info` (DWARF 5) or `.debug_types` (DWARF 4) in a group named by
/// the type's signature, in decimal. The first part's copy is kept and the
/// others dropped without comparing them: a unit describes its type whole
/// and the units of one signature are one type's (the linker keeps one of
/// them among objects the same way); each part numbers its abbreviations
/// its own way, so the copies differ.
fn is_type_unit_key(key: &str) -> bool {
    let (section, group) = (key.split(',').next().unwrap_or("").trim(), key.rsplit(',').next().unwrap_or("").trim());
    matches!(section, ".debug_info" | ".debug_types") && !group.is_empty() && group.bytes().all(|b| b.is_ascii_digit())
}

/// The group and the section of a `comdat_key`, for messages.
fn describe_key(key: &str) -> String {
    let group = key.rsplit(',').next().unwrap_or("").trim().trim_matches('"');
    let section = key.split(',').next().unwrap_or("").trim().trim_matches('"');
    format!("section {section} of group {group}")
}


fn section_start_label(k: usize, section: &str) -> String {
    format!(".Lmtpc{k}.start{section}")
}

/// (directory, name, rest) of the operands of `.file N`.
fn file_key(operands: &str) -> Option<FileKey> {
    let mut strings = Vec::new();
    let mut rest = operands;
    while let Some(s) = rest.strip_prefix('"') {
        let end = closing_quote(s)?;
        strings.push(s[..end].to_string());
        rest = s[end + 1..].trim_start();
    }
    match strings.len() {
        1 => Some((String::new(), strings.remove(0), rest.to_string())),
        2 => {
            let name = strings.pop()?;
            Some((strings.pop()?, name, rest.to_string()))
        }
        _ => None,
    }
}

/// Index of the quote that closes a string starting at `s` (after its opening quote).
fn closing_quote(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The line without a trailing `#` comment (outside strings).
fn strip_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_string => i += 1,
            b'"' => in_string = !in_string,
            b'#' if !in_string => return &line[..i],
            _ => {}
        }
        i += 1;
    }
    line
}

fn is_symbol_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'@')
}

/// What one part renames.
struct Renames<'a> {
    /// Replaces the `.L` of private labels.
    label_prefix: &'a str,
    /// Sections whose name, used as a symbol, means this part's start label.
    section_starts: &'a HashSet<String>,
    /// Local symbols that several parts define.
    locals: &'a HashSet<String>,
    /// Promoted locals made local again.
    local_again: &'a LocalAgainNames,
    part: usize,
}

/// Copies `line` to `out`, renaming private labels, colliding locals,
/// promoted locals made local again and section-start references outside
/// strings and comments. `Err` if it names a symbol by the name a promoted
/// local takes again.
fn rename_line(line: &str, r: &Renames<'_>, out: &mut String) -> Result<(), String> {
    let bytes = line.as_bytes();
    // Whether the line's operands name symbols (see below).
    let symbols_named = !r.local_again.is_empty() && names_symbols_when_quoted(line);
    let mut i = 0;
    let mut copied = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            match c {
                b'\\' => i += 2,
                b'"' => {
                    in_string = false;
                    i += 1
                }
                _ => i += 1,
            }
            continue;
        }
        match c {
            // A quoted operand of an instruction or of a symbol directive is a
            // symbol name (`callq "f-1"`, `.size "f-1", ...`); elsewhere it is text.
            b'"' if names_symbols_when_quoted(line) => {
                let end = quoted_end(bytes, i);
                let name = &line[i + 1..end.saturating_sub(1).max(i + 1)];
                let renamed = if let Some(rest) = name.strip_prefix(".L") {
                    Some(format!("{}{rest}", r.label_prefix))
                } else if r.locals.contains(name) {
                    Some(format!("{name}.mtpc{}", r.part))
                } else if !r.local_again.is_empty() {
                    r.local_again.rename(name, true, true)?
                } else {
                    None
                };
                if let Some(renamed) = renamed {
                    out.push_str(&line[copied..i]);
                    out.push_str(&format!("\"{renamed}\""));
                    copied = end;
                }
                i = end;
            }
            b'"' => {
                in_string = true;
                i += 1;
            }
            b'#' if !r.local_again.is_empty() => {
                // The asm printer's comments name functions and variables
                // (`# @f`, `# -- Begin function f`) as stock's text does.
                out.push_str(&line[copied..i]);
                r.local_again.rename_in_comment(&line[i..], out);
                return Ok(());
            }
            b'#' => break,
            _ if is_symbol_char(c) && (i == 0 || !is_symbol_char(bytes[i - 1])) => {
                // `$` starts an immediate in AT&T syntax (`movl $.L.str, %edi`),
                // not the symbol that follows it.
                if c == b'$' {
                    i += 1;
                    while i < bytes.len() && bytes[i] == b'$' {
                        i += 1;
                    }
                }
                let start = i;
                while i < bytes.len() && is_symbol_char(bytes[i]) {
                    i += 1;
                }
                let token = &line[start..i];
                let first_word = line[..start].trim().is_empty();
                let replacement = if let Some(rest) = token.strip_prefix(".L") {
                    Some(format!("{}{rest}", r.label_prefix))
                } else if r.locals.contains(token) {
                    Some(format!("{token}.mtpc{}", r.part))
                } else if !first_word && r.section_starts.contains(token) && !is_section_directive(line) {
                    Some(section_start_label(r.part, token))
                } else if !r.local_again.is_empty() {
                    // Not a register (`%rax`), a mnemonic or a directive,
                    // nor an operand of one that names no symbols (`.loc`'s
                    // `is_stmt`, a section's type).
                    let names_a_symbol = symbols_named && !first_word && bytes[start.saturating_sub(1)] != b'%';
                    r.local_again.rename(token, false, names_a_symbol)?
                } else {
                    None
                };
                if let Some(r) = replacement {
                    out.push_str(&line[copied..start]);
                    out.push_str(&r);
                    copied = i;
                }
            }
            _ => i += 1,
        }
    }
    out.push_str(&line[copied..]);
    Ok(())
}

/// Whether quotes on this line enclose symbol names: on instructions and
/// labels, and on directives whose operands are symbols or expressions, but
/// not on those that take text (strings, file names, section names).
fn names_symbols_when_quoted(line: &str) -> bool {
    let first = line.trim_start().split(|c: char| c.is_whitespace() || c == ',').next().unwrap_or("");
    if !first.starts_with('.') || first.ends_with(':') {
        return true;
    }
    matches!(
        first,
        ".globl" | ".global" | ".local" | ".weak" | ".hidden" | ".protected" | ".internal" | ".type" | ".size"
            | ".set" | ".equ" | ".equiv" | ".comm" | ".lcomm" | ".quad" | ".long" | ".short" | ".byte" | ".word"
            | ".int" | ".value" | ".4byte" | ".8byte" | ".2byte" | ".symver" | ".addrsig_sym" | ".reloc"
    )
}

/// The index just after the string that starts with the quote at `start`.
fn quoted_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

fn is_section_directive(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(".section") || t.starts_with(".pushsection")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn merged(parts: &[&str]) -> String {
        merge(parts).unwrap().text
    }

    #[test]
    fn quoted_locals_several_parts_define_are_renamed_per_part() {
        let a = "\t.type\t\"f-q1\",@function\n\"f-q1\":\n\tcallq\t\"f-q1\"\n\t.size\t\"f-q1\", .Lend-\"f-q1\"\n\t.asciz\t\"f-q1\"\n";
        let m = merged(&[a, a]);
        assert!(m.contains("\"f-q1.mtpc0\":") && m.contains("\"f-q1.mtpc1\":"), "{m}");
        assert!(m.contains("callq\t\"f-q1.mtpc1\"") && m.contains(".size\t\"f-q1.mtpc0\", .Lmtpc0.end-\"f-q1.mtpc0\""), "{m}");
        assert!(m.contains(".asciz\t\"f-q1\""), "text stays: {m}");
        // A quoted private label is private to its part all the same.
        let p = "\".Lf-q4\":\n\tcallq\t\".Lf-q4\"\n";
        let m = merged(&[p, p]);
        assert!(m.contains("\".Lmtpc0.f-q4\":") && m.contains("callq\t\".Lmtpc1.f-q4\""), "{m}");
    }

    #[test]
    fn private_labels_are_unique_per_part() {
        let a = "f:\n.Ltmp0:\n\tjmp .LBB0_1\n.LBB0_1:\n\tret\n";
        let b = "g:\n.Ltmp0:\n\tjmp .LBB0_1\n.LBB0_1:\n\tret\n";
        let m = merged(&[a, b]);
        assert!(m.contains(".Lmtpc0.tmp0:") && m.contains(".Lmtpc1.tmp0:"), "{m}");
        assert!(m.contains("jmp .Lmtpc1.BB0_1"), "{m}");
        assert!(!m.contains(".Ltmp0"), "{m}");
    }

    #[test]
    fn immediates_name_the_labels_after_their_dollar() {
        // Non-PIC code takes addresses as immediates: `$` is not part of the symbol.
        let a = ".L.str:\n\t.asciz\t\"a\"\n\tmovl\t$.L.str, %edi\n\tmovabsq\t$.L.str@GOTOFF, %rax\n\tmovl\t$GCC_except_table1, %esi\nGCC_except_table1:\n";
        let m = merged(&[a, a]);
        assert!(m.contains("\tmovl\t$.Lmtpc1..str, %edi"), "{m}");
        assert!(m.contains("\tmovabsq\t$.Lmtpc0..str@GOTOFF, %rax"), "{m}");
        assert!(m.contains("\tmovl\t$GCC_except_table1.mtpc1, %esi"), "{m}");
        assert!(!m.contains("$.L.str"), "{m}");
    }

    #[test]
    fn strings_and_comments_are_not_renamed() {
        let a = "\t.asciz\t\".Lnot_a_label # nor a comment\"\t# .Lcomment\n";
        assert_eq!(merged(&[a]), "\t.asciz\t\".Lnot_a_label # nor a comment\"\t# .Lcomment\n");
    }

    /// Merged with the module's promoted locals (promoted name, stock name).
    fn merged_promoted(parts: &[&str], promoted: &[(&str, &str)]) -> Result<String, MergeError> {
        let promoted: Promoted = promoted.iter().map(|&(from, to)| (from.to_string(), to.to_string())).collect();
        let scans: Vec<PartScan> = parts.iter().map(|p| PartScan::of(p)).collect();
        merge_promoted(parts, &scans, Files::default(), &promoted).map(|m| m.text)
    }

    /// A promoted local one part defines is local again under its stock
    /// name, as in stock's text: its binding and visibility go in every
    /// part (the parts that call it say `.hidden` too), every part names it
    /// so (with a modifier too, and in the asm printer's comments, one of
    /// which moves to the next line kept), and the sections named after it
    /// are named after that name. One that is not local again keeps its
    /// name.
    #[test]
    fn a_promoted_local_one_part_defines_is_local_again() {
        let a = "\t.section\t.text.f.mtpc.1,\"ax\",@progbits\n\t.weak\tf.mtpc.1\t# -- Begin function f.mtpc.1\n\t.hidden\tf.mtpc.1\n\t.type\tf.mtpc.1,@function\nf.mtpc.1:\t# @f.mtpc.1\n\tjmpq\t*.LJTI0_0(,%rax,8)\n\t.section\t.rodata.f.mtpc.1,\"a\",@progbits\n.LJTI0_0:\n\t.quad\tf.mtpc.1+4\n\t.text\n\t.size\tf.mtpc.1, .Lfunc_end0-f.mtpc.1\n\t.addrsig_sym\tf.mtpc.1\n";
        let b = "\t.globl\tg\ng:\n\tcallq\tf.mtpc.1\t# -- f.mtpc.1, f.mtpc.10, xf.mtpc.1\n\tmovq\tf.mtpc.1@GOTPCREL(%rip), %rax\n\tcallq\tkept.mtpc.1\n\t.hidden\tf.mtpc.1\n\t.hidden\tkept.mtpc.1\n";
        let m = merged_promoted(&[a, b], &[("f.mtpc.1", "f"), ("kept.mtpc.1", "kept")]).unwrap();
        let expected_a = "\t.section\t.text.f,\"ax\",@progbits\n\t.type\tf,@function\t# -- Begin function f\nf:\t# @f\n\tjmpq\t*.Lmtpc0.JTI0_0(,%rax,8)\n\t.section\t.rodata.f,\"a\",@progbits\n.Lmtpc0.JTI0_0:\n\t.quad\tf+4\n\t.text\n\t.size\tf, .Lmtpc0.func_end0-f\n\t.addrsig_sym\tf\n";
        let expected_b = "\t.globl\tg\ng:\n\tcallq\tf\t# -- f, f.mtpc.10, xf.mtpc.1\n\tmovq\tf@GOTPCREL(%rip), %rax\n\tcallq\tkept.mtpc.1\n\t.hidden\tkept.mtpc.1\n";
        assert_eq!(m, format!("{expected_a}{expected_b}"));
        // Without the promoted locals, nothing is renamed.
        assert!(merged(&[a, b]).contains("callq\tf.mtpc.1\t# -- f.mtpc.1, f.mtpc.10, xf.mtpc.1\n\tmovq\tf.mtpc.1@GOTPCREL"));
    }

    /// A section linked to one named after a promoted local made local
    /// again (`-fstack-size-section`'s `.stack_sizes`, with
    /// `-ffunction-sections`) names it by its new name; a quoted name is
    /// renamed whole (`@` is part of it), and one in a `.pushsection`.
    #[test]
    fn sections_linked_to_a_renamed_section_name_it_so() {
        let a = "\t.section\t.text.f.mtpc.1,\"ax\",@progbits\n\t.globl\tf.mtpc.1\nf.mtpc.1:\n\tretq\n\t.section\t.stack_sizes,\"o\",@progbits,.text.f.mtpc.1\n\t.quad\tf.mtpc.1\n\t.byte\t8\n\t.pushsection\t.text.f.mtpc.1,\"ax\",@progbits\n\t.popsection\n";
        let b = "\t.globl\t\"q@r.mtpc.1\"\n\"q@r.mtpc.1\":\n\tcallq\t\"q@r.mtpc.1\"\n";
        let m = merged_promoted(&[a, b], &[("f.mtpc.1", "f"), ("q@r.mtpc.1", "q@r")]).unwrap();
        let expected = "\t.section\t.text.f,\"ax\",@progbits\nf:\n\tretq\n\t.section\t.stack_sizes,\"o\",@progbits,.text.f\n\t.quad\tf\n\t.byte\t8\n\t.pushsection\t.text.f,\"ax\",@progbits\n\t.popsection\n\"q@r\":\n\tcallq\t\"q@r\"\n";
        assert_eq!(m, expected);
    }

    /// Not local again: one defined in a mergeable, thread-local or COMDAT
    /// section; one whose stock name a part defines (a local of its own, or
    /// a colliding local under the name the merge gives it); one two parts
    /// define (in a group each, kept once); one no part defines.
    #[test]
    fn a_promoted_local_stays_promoted_where_a_local_could_not_stand_for_it() {
        let defined_in = |name: &str, section: &str| format!("{section}\n\t.globl\t{name}\n\t.hidden\t{name}\n{name}:\n\t.byte\t1\n");
        let cases = [
            defined_in("s.mtpc.1", "\t.section\t.rodata.str1.1,\"aMS\",@progbits,1"),
            defined_in("t.mtpc.1", "\t.section\t.tbss,\"awT\",@nobits"),
            defined_in("c.mtpc.1", "\t.section\t.data.c,\"awG\",@progbits,c.mtpc.1,comdat"),
            defined_in("l.mtpc.1", "\t.data") + "l:\n",
        ];
        let promoted = [("s.mtpc.1", "s"), ("t.mtpc.1", "t"), ("c.mtpc.1", "c"), ("l.mtpc.1", "l"), ("n.mtpc.1", "n")];
        for case in &cases {
            let m = merged_promoted(&[case.as_str(), "\tcallq\tn.mtpc.1\n"], &promoted).unwrap();
            assert_eq!(m, format!("{case}\tcallq\tn.mtpc.1\n"));
        }
        // A COMDAT group two parts define is kept once: still promoted.
        let c = cases[2].as_str();
        assert_eq!(merged_promoted(&[c, c], &promoted).unwrap(), merged(&[c, c]));
        // A local two parts define is renamed per part: the name the merge
        // gives it is taken, its own is not.
        let local = "\t.data\nx:\n";
        let x = defined_in("x.mtpc.1", "\t.text");
        let m = merged_promoted(&[local, local, x.as_str()], &[("x.mtpc.1", "x.mtpc0")]).unwrap();
        assert!(m.contains("\nx.mtpc0:\n") && m.contains("\nx.mtpc1:\n") && m.contains("\nx.mtpc.1:\n"), "{m}");
        let m = merged_promoted(&[local, local, x.as_str()], &[("x.mtpc.1", "x")]).unwrap();
        assert!(m.contains("\nx.mtpc0:\n") && m.contains("\nx.mtpc1:\n") && m.contains("\t.text\nx:\n\t.byte\t1\n"), "{m}");
    }

    /// A part that names a symbol by the stock name a promoted local takes
    /// again (a library call the code generator made under a static
    /// function's name) would have it stand for the local: the merge fails,
    /// and the module compiles whole. Where the name is no symbol (a
    /// register, a mnemonic, a `.loc` flag, a section's type), it is not
    /// renamed, nor an error.
    #[test]
    fn a_symbol_named_as_a_promoted_local_taken_again_fails_the_merge() {
        let a = "\t.globl\tmemcpy.mtpc.1\n\t.hidden\tmemcpy.mtpc.1\nmemcpy.mtpc.1:\n\tretq\n";
        let promoted = [("memcpy.mtpc.1", "memcpy"), ("rax.mtpc.1", "rax"), ("is_stmt.mtpc.1", "is_stmt"), ("nobits.mtpc.1", "nobits")];
        let e = merged_promoted(&[a, "\tcallq\tmemcpy@PLT\n"], &promoted).unwrap_err();
        assert!(e.0.contains("part 1") && e.0.contains("memcpy is named"), "{e}");
        let defines = |name: &str| format!("\t.globl\t{name}.mtpc.1\n{name}.mtpc.1:\n\tretq\n");
        let others = "\t.file\t1 \"a.c\"\n\tmovq\t%rax, rax.mtpc.1(%rip)\n\t.loc\t1 2 3 is_stmt 0\n\t.section\t.bss.z,\"aw\",@nobits\n\tretq\n";
        let parts = [defines("rax"), defines("is_stmt"), defines("nobits"), others.to_string()];
        let m = merged_promoted(&parts.iter().map(String::as_str).collect::<Vec<_>>(), &promoted).unwrap();
        assert!(m.contains("\tmovq\t%rax, rax(%rip)\n\t.loc\t1 2 3 is_stmt 0\n\t.section\t.bss.z,\"aw\",@nobits\n"), "{m}");
        assert!(m.contains("\nrax:\n") && m.contains("\nis_stmt:\n") && m.contains("\nnobits:\n"), "{m}");
    }

    fn with_table<'a>(table: &'a str) -> Files<'a> {
        Files { table: Some(table), compile_unit_directory: None }
    }

    #[test]
    fn the_shared_file_table_comes_first_and_parts_keep_their_numbers() {
        let table = "\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t1 \"/d\" \"x.h\" md5 0x02\n\t.file\t2 \"/d\" \"y.h\" md5 0x03\n";
        let a = "\t.file\t\"x.c\"\n\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.loc\t1 3 0\n\t.loc\t0 7 2 prologue_end\n";
        let b = "\t.file\t\"x.c\"\n\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t3 \"/e\" \"z.h\" md5 0x04\n\t.loc\t2 4 0\n\t.loc\t3 5 0\n";
        let m = merge_in(&[a, b], with_table(table)).unwrap();
        // The root last (see FileTable).
        assert_eq!(
            &m.text[..m.table],
            "\t.file\t1 \"/d\" \"x.h\" md5 0x02\n\t.file\t2 \"/d\" \"y.h\" md5 0x03\n\t.file\t3 \"/e\" \"z.h\" md5 0x04\n\t.file\t0 \"/d\" \"x.c\" md5 0x01\n"
        );
        // The file symbol is the host's to write; the table is not repeated.
        assert!(!m.text.contains(".file\t\"x.c\""), "{}", m.text);
        assert_eq!(m.text.matches(".file").count(), 4, "{}", m.text);
        assert_eq!(&m.text[m.segments[0].clone()], "\t.loc\t1 3 0\n\t.loc\t0 7 2 prologue_end\n");
        assert_eq!(&m.text[m.segments[1].clone()], "\t.loc\t2 4 0\n\t.loc\t3 5 0\n");
    }

    #[test]
    fn a_file_two_parts_number_differently_is_an_error() {
        // The parts' debug information names files by number: it cannot be
        // renumbered, so the parts must agree.
        let a = "\t.file\t1 \"/d\" \"x.h\"\n\t.loc\t1 3 0\n";
        let b = "\t.file\t1 \"/d\" \"y.h\"\n\t.loc\t1 4 0\n";
        let e = merge(&[a, b]).unwrap_err();
        assert!(e.0.contains("part 1, line 1: file 1 is \"/d\" \"y.h\", but \"/d\" \"x.h\" elsewhere"), "{e}");
        let e = merge_in(&[b], with_table("\t.file\t1 \"/d\" \"x.h\"\n")).unwrap_err();
        assert!(e.0.contains("the parts number their files differently"), "{e}");
    }

    #[test]
    fn the_root_comes_last_so_that_no_entry_is_taken_for_it() {
        // A `#line` directive names the main file without a checksum: once the
        // checksums are dropped (not every entry has one), the entry has the
        // root's name and checksum. Parsed after `.file 0`, the assembler
        // would give it no number (DWARF 5), and `.loc 2` would name nothing.
        let table = "\t.file\t0 \"/d\" \"s.c\" md5 0x01\n\t.file\t1 \"three.h\"\n\t.file\t2 \"s.c\"\n";
        let m = merge_in(&["\t.loc\t2 20 0\n"], with_table(table)).unwrap();
        assert_eq!(&m.text[..m.table], "\t.file\t1 \"three.h\"\n\t.file\t2 \"s.c\"\n\t.file\t0 \"/d\" \"s.c\"\n");
        assert_eq!(&m.text[m.segments[0].clone()], "\t.loc\t2 20 0\n");
    }

    #[test]
    fn a_dwarf4_file_in_the_compile_units_directory_is_named_without_it() {
        let table = "\t.file\t1 \"/d\" \"x.h\"\n\t.file\t2 \"/usr/include\" \"stdio.h\"\n";
        let files = Files { table: Some(table), compile_unit_directory: Some("/d") };
        let m = merge_in(&["\t.loc\t2 1 0\n"], files).unwrap();
        assert_eq!(&m.text[..m.table], "\t.file\t1 \"x.h\"\n\t.file\t2 \"/usr/include\" \"stdio.h\"\n");
        // DWARF 5 names the directory in the root: entries keep theirs.
        let table = "\t.file\t0 \"/d\" \"s.c\"\n\t.file\t1 \"/d\" \"x.h\"\n";
        let files = Files { table: Some(table), compile_unit_directory: Some("/d") };
        assert!(merge_in(&[""], files).unwrap().text.contains("\t.file\t1 \"/d\" \"x.h\"\n"));
    }

    #[test]
    fn loc_without_file_is_an_error() {
        let e = merge(&["\t.loc\t3 1 0\n"]).unwrap_err();
        assert!(e.0.contains("file 3, which no .file gives"), "{e}");
    }

    #[test]
    fn abbrev_section_references_become_part_labels() {
        let part = "\t.section\t.debug_abbrev,\"\",@progbits\n\t.byte\t1\n\t.section\t.debug_info,\"\",@progbits\n\t.long\t.debug_abbrev\n";
        let m = merged(&[part, part]);
        assert!(m.contains(".debug_abbrev,\"\",@progbits\n.Lmtpc0.start.debug_abbrev:\n"), "{m}");
        assert!(m.contains("\t.long\t.Lmtpc1.start.debug_abbrev\n"), "{m}");
        assert!(!m.contains("\t.long\t.debug_abbrev"), "{m}");
    }

    #[test]
    fn type_units_are_kept_from_the_first_part_that_writes_them() {
        // Each part numbers its abbreviations and labels its own way: the
        // two copies of unit 123 differ, and the second goes unread.
        let part = |k: u32, abbrev: u32| {
            format!(
                "\t.text\nf{k}:\n\tret\n\t.section\t.debug_info,\"G\",@progbits,123,comdat\n\t.long\t.Lend{k}-.Lstart{k}\n.Lstart{k}:\n\t.byte\t{abbrev}\n.Lend{k}:\n\t.section\t.debug_info,\"\",@progbits\n\t.byte\t{}\n\t.text\ng{k}:\n\tret\n",
                100 + k
            )
        };
        let m = merged(&[&part(0, 1), &part(1, 7)]);
        assert_eq!(m.matches(",123,comdat").count(), 1, "{m}");
        assert!(m.contains("\t.byte\t1\n") && !m.contains("\t.byte\t7\n"), "{m}");
        assert!(!m.contains("Lend1") && !m.contains("Lstart1"), "{m}");
        // Each part's own unit stays, and what follows the dropped copy.
        assert!(m.contains("g1:") && m.contains("\t.byte\t100\n") && m.contains("\t.byte\t101\n"), "{m}");
        assert_eq!(m.matches(".section\t.debug_info,\"\",@progbits").count(), 2, "{m}");
        assert!(is_type_unit_key(".debug_types,\"G\",@progbits,18446744073709551615"));
        assert!(!is_type_unit_key(".debug_info,\"G\",@progbits,_Z1fv"));
        assert!(!is_type_unit_key(".data.k,\"awG\",@progbits,123"));
    }

    #[test]
    fn repeated_group_sections_are_kept_once() {
        // Each part numbers its private labels itself; the alias is part 1's own.
        let part = |k: u32, value: &str| {
            format!(
                "\t.text\nf{k}:\n\tret\n\t.section\t.data.DW.ref.p,\"awG\",@progbits,DW.ref.p,comdat\n\t.weak\tDW.ref.p\nDW.ref.p:\n\t.quad\t{value}\n.Lend{k}:\n\t.size\tDW.ref.p, .Lend{k}-DW.ref.p\n\t.text\ng{k}:\n\tret\n"
            )
        };
        let with_alias = part(1, "p").replace("\t.text\ng1:", "\t.globl\talias1\n.set alias1, g1\n\t.text\ng1:");
        let m = merged(&[&part(0, "p"), &with_alias]);
        assert_eq!(m.matches("DW.ref.p:").count(), 1, "{m}");
        // The size of the dropped copy, which measures labels that are gone, goes too.
        assert_eq!(m.matches(".size\tDW.ref.p").count(), 1, "{m}");
        assert!(!m.contains("end1"), "{m}");
        assert!(m.contains("f1:") && m.contains("g1:"), "{m}");
        // Directives about symbols after a skipped group are kept.
        assert!(m.contains(".set alias1, g1"), "{m}");
        // A copy with other contents cannot be dropped for the first.
        let e = merge(&[part(0, "p"), part(1, "q")]).unwrap_err();
        assert!(e.0.contains("part 1: its copy of section .data.DW.ref.p of group DW.ref.p differs"), "{e}");
    }

    #[test]
    fn a_group_whose_members_parts_emit_apart_is_their_union() {
        // Part 0 emits member f of group G, part 1 members f (the same) and g.
        let f = "\t.section\t.text.f,\"axG\",@progbits,G,comdat\n\t.weak\tf\nf:\n\tret\n";
        let g = "\t.section\t.text.g,\"axG\",@progbits,G,comdat\n\t.weak\tg\ng:\n\tret\n";
        let m = merged(&[&format!("\t.text\na:\n{f}"), &format!("\t.text\nb:\n{f}{g}")]);
        assert_eq!(m.matches("\nf:").count(), 1, "{m}");
        assert_eq!(m.matches("\ng:").count(), 1, "{m}");
        assert_eq!(m.matches(".section\t.text.g,").count(), 1, "{m}");
        // A member two parts emit differently is still an error.
        let other_f = f.replace("\tret", "\tnop\n\tret");
        let e = merge(&[f.to_string(), format!("{other_f}{g}")]).unwrap_err();
        assert!(e.0.contains("its copy of section .text.f of group G differs"), "{e}");
    }

    #[test]
    fn strings_several_parts_hold_are_pooled_once() {
        let part = |k: u32, own: &str| {
            format!(
                "\t.text\nf{k}:\n\tret\n\t.section\t.debug_info,\"\",@progbits\n\t.long\t.Linfo_string0\n\t.long\t.Linfo_string1\n\t.section\t.debug_str,\"MS\",@progbits,1\n.Linfo_string0:\n\t.asciz\t\"int\"\n.Linfo_string1:\n\t.asciz\t\"{own}\"\n"
            )
        };
        let m = merge(&[part(0, "a"), part(1, "b")]).unwrap();
        let text = &m.text;
        // "int", which both hold, once, in the prefix; each part's own string in its segment.
        assert_eq!(text.matches("\"int\"").count(), 1, "{text}");
        assert!(text[..m.table].contains(".Lmtpc.str0:\n\t.asciz\t\"int\"\n"), "{text}");
        assert!(text[..m.table].ends_with("\t.text\n"), "{text}");
        for k in 0..2 {
            let segment = &text[m.segments[k].clone()];
            assert!(segment.contains(&format!("\t.set\t.Lmtpc{k}.info_string0, .Lmtpc.str0\n")), "{segment}");
            assert!(segment.contains(&format!(".Lmtpc{k}.info_string1:\n")), "{segment}");
        }
    }

    #[test]
    fn what_follows_a_dropped_group_outside_any_section_stays() {
        // The code generator writes a static variable's common, and an
        // alias with its size, wherever it is; after a dropped group they
        // are still the part's own.
        let part = |k: u32| {
            format!(
                "\t.section\t.text.t,\"axG\",@progbits,t,comdat\n\t.weak\tt\nt:\n\tret\n\t.local\tcalls{k}\n\t.comm\tcalls{k},4,4\n\t.globl\talias{k}\n\t.set\talias{k}, t\n\t.size\talias{k}, 1\n\t.cg_profile f{k}, t, 10\n"
            )
        };
        let m = merged(&[&part(0), &part(1)]);
        assert_eq!(m.matches("\nt:").count(), 1, "{m}");
        assert!(m.contains("\t.comm\tcalls1,4,4"), "{m}");
        assert!(m.contains("\t.set\talias1, t\n\t.size\talias1, 1"), "{m}");
        assert!(m.contains("\t.cg_profile f1, t, 10"), "{m}");
    }

    #[test]
    fn a_group_entered_by_pushsection_is_tracked_to_its_popsection() {
        let part = |k: u32| {
            format!(
                "\t.text\nf{k}:\n\t.pushsection\t.text.t,\"axG\",@progbits,t,comdat\n\t.weak\tt\nt:\n\tret\n\t.popsection\n\tret\n\t.section\t.text.v{k},\"ax\",@progbits\n\tnop\n\t.previous\nh{k}:\n\tret\n"
            )
        };
        let m = merged(&[&part(0), &part(1)]);
        assert_eq!(m.matches("\nt:").count(), 1, "{m}");
        // Part 1's push and pop go together; its `.previous` toggles
        // between its own sections only.
        assert!(m.contains("f1:\n\t.weak\tt\n\tret\n\t.section\t.text.v1"), "{m}");
        assert_eq!(m.matches(".popsection").count(), 1, "{m}");
        assert!(m.ends_with("\t.previous\nh1:\n\tret\n"), "{m}");
        // A `.previous` back from a group whose switch was dropped cannot be followed.
        let group = "\t.section\t.text.u,\"axG\",@progbits,u,comdat\n\t.weak\tu\nu:\n\tnop\n";
        let back = format!("\t.text\n{group}\t.previous\n\tret\n");
        let e = merge(&[group, &back]).unwrap_err();
        assert!(e.0.contains("part 1, line 6: `.previous` after a switch into a COMDAT group"), "{e}");
        // A kept `.popsection` restores what was pushed, whatever was dropped since.
        let within = "\t.text\nf:\n\t.pushsection\t.data.x,\"aw\",@progbits\n\t.section\t.text.u,\"axG\",@progbits,u,comdat\n\t.weak\tu\nu:\n\tnop\n\t.popsection\n\tret\n\t.section\t.text.w,\"ax\",@progbits\n\tnop\n\t.previous\nh:\n\tret\n";
        let m = merged(&[group, within]);
        assert_eq!(m.matches("\nu:").count(), 1, "{m}");
        assert!(m.contains("\t.pushsection\t.data.x,\"aw\",@progbits\n\t.weak\tu\n\t.popsection\n\tret\n"), "{m}");
        // A dropped one leaves the merged text where a kept switch within it went.
        let pushed = "\t.text\nf:\n\t.pushsection\t.text.u,\"axG\",@progbits,u,comdat\n\t.weak\tu\nu:\n\t.section\t.data.y,\"aw\",@progbits\n\t.long\t1\n\t.popsection\n\tret\n";
        assert!(merge(&[group, pushed]).unwrap_err().0.contains("`.popsection` after a switch"));
    }

    #[test]
    fn unique_sections_get_an_id_of_their_own_per_part() {
        let part = |f: &str| {
            format!(
                "\t.section\t.text.hot,\"ax\",@progbits,unique,1\n{f}:\n\tret\n\t.section\t.text.hot,\"ax\",@progbits,unique,1\n\tnop\n\t.section\t.text.__x86.thunk,\"axG\",@progbits,__x86.thunk,comdat,unique,2\n__x86.thunk:\n\tret\n"
            )
        };
        let m = merged(&[&part("f"), &part("g")]);
        // Part 0's sections keep being one section each; part 1's are others.
        assert_eq!(m.matches("@progbits,unique,1\n").count(), 2, "{m}");
        assert_eq!(m.matches("@progbits,unique,3\n").count(), 2, "{m}");
        // A repeated COMDAT group with a unique id is still kept once.
        assert_eq!(m.matches("__x86.thunk:").count(), 1, "{m}");
        // Sections apart by unique ids, which a transcript cannot state.
        assert!(merge(&[&part("f")]).unwrap().unique_sections);
        assert!(!merge(&["\t.section\t.text.hot,\"ax\",@progbits\nf:\n\tret\n"]).unwrap().unique_sections);
    }

    #[test]
    fn sections_of_plain_groups_lose_their_unique_ids() {
        // ASan's descriptor of a local string in a ThinLTO backend: its
        // group is `nodeduplicate`, no COMDAT; as LLVM prints it the line
        // does not assemble.
        let part = |s: &str| {
            format!(
                "\t.section\t.rodata.{s},\"aG\",@progbits,{s}.grp\n{s}:\n\t.byte\t0\n\t.section\tasan_globals,\"awoG\",@progbits,{s},{s}.grp,unique,1\n\t.quad\t{s}\n\t.section\t.text.hot,\"ax\",@progbits,unique,1\n\tret\n"
            )
        };
        let m = merged(&[&part("str_a"), &part("str_b")]);
        assert!(m.contains("\t.section\tasan_globals,\"awoG\",@progbits,str_a,str_a.grp\n"), "{m}");
        assert!(m.contains("\t.section\tasan_globals,\"awoG\",@progbits,str_b,str_b.grp\n"), "{m}");
        // A COMDAT's or a group-less section's id is renumbered as before.
        assert_eq!(m.matches(".text.hot,\"ax\",@progbits,unique,").count(), 2, "{m}");
        assert_eq!(plain_group_section("\t.section\tx,\"axG\",@progbits,g,comdat,unique,3"), None);
        assert_eq!(plain_group_section("\t.section\tx,\"ax\",@progbits,unique,3"), None);
        assert_eq!(plain_group_section("\t.section\tx,\"aG\",@progbits,g,unique,3"), Some(("\t.section\tx,\"aG\",@progbits,g".into(), 3)));
        // Two such sections told apart by their ids only cannot be written.
        let twice = "\t.section\tx,\"aG\",@progbits,g,unique,1\n\t.byte\t1\n\t.section\tx,\"aG\",@progbits,g,unique,2\n\t.byte\t2\n";
        assert!(merge(&[twice]).is_err());
    }

    #[test]
    fn the_code_generators_property_note_is_left_to_the_host() {
        let part = "\t.text\n\t.section\t.note.gnu.property,\"a\",@note\n\t.p2align\t3, 0x0\n\t.long\t4\n.Lsec_end0:\n\t.text\n\t.file\t\"m.c\"\nf:\n\tendbr64\n\tret\n";
        let user = "\t.file\t\"m.c\"\n\t.section\t.note.gnu.property,\"a\",@note\n\t.long\t7\n\t.text\ng:\n\tret\n";
        let m = merged(&[part, user]);
        assert!(!m.contains(".long\t4") && !m.contains("sec_end0"), "{m}");
        assert!(m.contains("f:\n\tendbr64"), "{m}");
        // A note in the text itself (module-level asm) stays.
        assert!(m.contains(".long\t7"), "{m}");
    }

    #[test]
    fn a_weak_object_several_parts_define_is_kept_from_the_first() {
        let placed = |k: u32, value: u32, section: &str, align: u32| {
            format!(
                "\t.type\tw,@object\n\t.section\t{section},\"a\",@progbits\n\t.weak\tw\n\t.p2align\t{align}, 0x0\nw:\n\t.long\t{value}\n\t.size\tw, 4\n\t.text\n\t.globl\tf{k}\nf{k}:\n\tret\n"
            )
        };
        let part = |k: u32, value: u32| placed(k, value, ".rodata", 2);
        let m = merged(&[&part(0, 7), &part(1, 7)]);
        assert_eq!(m.matches("w:").count(), 1, "{m}");
        assert_eq!(m.matches(".long\t7").count(), 1, "{m}");
        assert_eq!(m.matches(".size\tw, 4").count(), 1, "{m}");
        assert!(m.contains("f1:"), "{m}");
        // One copy stands for all only if all are the same.
        let e = merge(&[&part(0, 0), &part(1, 1)]).unwrap_err();
        assert!(e.0.contains("part 1: its copy of object w differs"), "{e}");
        // Where a copy is placed, and how it is aligned, belong to it.
        assert!(merge(&[&part(0, 7), &placed(1, 7, ".data", 2)]).is_err());
        assert!(merge(&[&part(0, 7), &placed(1, 7, ".rodata", 3)]).is_err());
        // A weak function is not data: two definitions are an error.
        let function = "\t.weak\tg\n\t.type\tg,@function\ng:\n\tret\n";
        assert!(merge(&[function, function]).is_err());
    }

    #[test]
    fn assignments_are_read_as_set() {
        let rewritten = |text: &str| {
            let mut asm = text.as_bytes().to_vec();
            write_assignments_as_set(&mut asm);
            String::from_utf8(asm).unwrap()
        };
        let text = "inc = .cfi.jumptable+8\n\"odd name\" = f\n\t.ascii\t\"x = y\"\n\tmovl\t$1, %eax\n";
        assert_eq!(
            rewritten(text),
            ".set inc, .cfi.jumptable+8\n.set \"odd name\", f\n\t.ascii\t\"x = y\"\n\tmovl\t$1, %eax\n"
        );
        // LLVM 22's AddressSanitizer: each part's destructor group, followed
        // by an alias of a private global the part names alike; the group's
        // copies are the same once the alias is read as `.set`.
        let part = |global: &str| {
            rewritten(&format!(
                "\t.section\t.fini_array.1,\"awG\",@fini_array,asan.module_dtor,comdat\n\t.p2align\t3, 0x0\n\t.quad\tasan.module_dtor\n.L__unnamed_1 = {global}\n"
            ))
        };
        let m = merged(&[part("table").as_str(), part(".str").as_str()]);
        assert_eq!(m.matches(".quad\tasan.module_dtor").count(), 1, "{m}");
    }

    #[test]
    fn commons_and_assignments_are_definitions_too() {
        // A static zero-initialised variable is a local common.
        let part = "\t.local\tcounter\n\t.comm\tcounter,4,4\n\tmovl\tcounter(%rip), %eax\n";
        let m = merged(&[part, part]);
        assert!(m.contains("\t.comm\tcounter.mtpc0,4,4") && m.contains("\t.comm\tcounter.mtpc1,4,4"), "{m}");
        assert!(m.contains("counter.mtpc1(%rip)"), "{m}");
        // A hidden common the same in two parts is one, as a linker makes
        // it; one not hidden or of two sizes, or a symbol assigned in two
        // parts, is defined twice.
        let flag = "\t.hidden\tflag\n\t.type\tflag,@object\n\t.comm\tflag,8,8\n\tleaq\tflag(%rip), %rdi\n";
        let m = merged(&[flag, flag]);
        assert_eq!(m.matches(".comm").count(), 1, "{m}");
        assert_eq!(m.matches("leaq\tflag(%rip)").count(), 2, "{m}");
        assert!(merge(&["\t.comm\tshared,4,4\n", "\t.comm\tshared,4,4\n"]).unwrap_err().0.contains("shared is defined by part 0 too"));
        let sized = |n: u32| format!("\t.hidden\tshared\n\t.comm\tshared,{n},4\n");
        assert!(merge(&[sized(4), sized(8)]).unwrap_err().0.contains("shared is defined by part 0 too"));
        assert!(merge(&["\t.globl\ta\n\t.set\ta, f\n", "\t.globl\ta\n\t.set\ta, g\n"]).is_err());
        assert!(merge(&["\t.globl\t\"odd name\"\n\"odd name\":\n", "\t.globl\t\"odd name\"\n\"odd name\":\n"]).is_err());
    }

    #[test]
    fn a_leb128_measures_only_the_parts_own_symbols() {
        let own = "\t.globl\tf1\nf1:\n.La:\n\tret\n.Lb:\n\t.section\t.foo,\"a\",@progbits\n\t.uleb128\t.Lb-.La\n\t.uleb128\t.Lb-f1\n";
        merged(&["\t.globl\tg\ng:\n\tret\n", own]);
        let other = "\tnop\n\t.section\t.foo,\"a\",@progbits\n\t.uleb128\tg-0x10\n";
        let e = merge(&["\t.globl\tg\ng:\n\tret\n", other]).unwrap_err();
        assert!(e.0.contains("part 1, line 3: a LEB128 value measures g, which the part does not define"), "{e}");
    }

    #[test]
    fn a_symbol_two_parts_define_is_an_error() {
        let e = merge(&["\t.globl\tf\nf:\n\tret\n", "\t.globl\tf\nf:\n\tret\n"]).unwrap_err();
        assert!(e.0.contains("f is defined by part 0 too"), "{e}");
    }

    #[test]
    fn colliding_local_symbols_are_renamed_per_part() {
        let part = "\t.section\t.gcc_except_table,\"a\",@progbits\nGCC_except_table1:\n\t.byte\t255\n\t.long\tGCC_except_table1\nshared:\n";
        let global = "\t.globl\tshared\nshared:\n";
        let m = merged(&[part, part, global]);
        assert!(m.contains("GCC_except_table1.mtpc0:") && m.contains("GCC_except_table1.mtpc1:"), "{m}");
        assert!(m.contains(".long\tGCC_except_table1.mtpc1"), "{m}");
        assert!(!m.contains("\nGCC_except_table1:"), "{m}");
    }

    #[test]
    fn a_local_in_a_group_in_one_part_and_outside_in_another_is_renamed() {
        let in_group = "\t.section\t.gcc_except_table._Z1fv,\"aG\",@progbits,_Z1fv,comdat\nGCC_except_table3:\n\t.byte\t255\n";
        let outside = "\t.section\t.gcc_except_table,\"a\",@progbits\nGCC_except_table3:\n\t.byte\t1\n";
        let m = merged(&[in_group, outside]);
        assert!(m.contains("GCC_except_table3.mtpc0:") && m.contains("GCC_except_table3.mtpc1:"), "{m}");
    }

    #[test]
    fn md5_dropped_unless_every_entry_has_one() {
        let a = "\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t1 \"/d\" \"x.h\"\n";
        assert!(!merged(&[a]).contains("md5"));
        let b = "\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t1 \"/d\" \"x.h\" md5 0x02\n";
        assert_eq!(merged(&[b]).matches("md5").count(), 2);
        // Names and embedded sources may hold the word: only the checksum goes.
        let c = "\t.file\t0 \"/d\" \"md5 x.c\" md5 0x01 source \"// md5 0x02\"\n\t.file\t1 \"/d md5 0x03\" \"x.h\" source \"md5 \"\n";
        let m = merged(&[c]);
        assert!(m.contains("\t.file\t0 \"/d\" \"md5 x.c\" source \"// md5 0x02\"\n"), "{m}");
        assert!(m.contains("\t.file\t1 \"/d md5 0x03\" \"x.h\" source \"md5 \"\n"), "{m}");
    }

    #[test]
    fn any_byte_survives_and_segments_are_byte_ranges() {
        let part: Vec<u8> = b"\t.file\t1 \"\xe9t\xe9.h\"\n\t.ascii\t\"\xff\x80\xe9\"\n.Lx:\n\t.loc\t1 2 3\n".to_vec();
        let m = merge_bytes(&[part.clone(), part], Files::default()).unwrap();
        assert_eq!(&m.text[..m.table], b"\t.file\t1 \"\xe9t\xe9.h\"\n");
        assert_eq!(&m.text[m.segments[1].clone()], b"\t.ascii\t\"\xff\x80\xe9\"\n.Lmtpc1.x:\n\t.loc\t1 2 3\n");
        assert_eq!(m.segment_with_table(1), [&m.text[..m.table], &m.text[m.segments[1].clone()]].concat());
    }

    #[test]
    fn parts_scanned_alone_merge_as_scanned_together() {
        // Each part is scanned on its own worker, one of them ASCII and one
        // not: a string both hold is still pooled once, and any byte survives.
        let strings = "\t.section\t.debug_str,\"MS\",@progbits,1\n.Linfo_string0:\n\t.asciz\t\"shared\"\n";
        let ascii = strings.as_bytes().to_vec();
        let other = [strings.as_bytes(), b"\t.section\t.rodata\n\t.ascii\t\"\xff\"\n"].concat();
        let scans = [PartScan::of_bytes(&ascii), PartScan::of_bytes(&other)];
        let m = merge_scanned_bytes(&[&ascii, &other], &scans, Files::default()).unwrap();
        assert_eq!(m, merge_bytes(&[&ascii, &other], Files::default()).unwrap());
        let text = String::from_utf8_lossy(&m.text);
        assert_eq!(text.matches("\"shared\"").count(), 1, "{text}");
        assert!(text.contains("\t.set\t.Lmtpc0.info_string0, .Lmtpc.str0\n") && text.contains("\t.set\t.Lmtpc1.info_string0, .Lmtpc.str0\n"), "{text}");
        assert!(m.text.ends_with(b"\t.ascii\t\"\xff\"\n"));
    }

    #[test]
    fn segments_are_written_apart_from_what_the_merge_decided() {
        // A line ended by CRLF, and a last line without its newline: each
        // written as the line it is, ended by a newline.
        let part = "a:\r\n\tret\n.Lx:\n\tjmp\t.Lx";
        let scans = [PartScan::of(part), PartScan::of(part)];
        let texts = TextsToMerge::new(vec![part.as_bytes().to_vec(); 2], Files::default());
        assert_eq!(texts.carried(), Carried::Ascii);
        let plan = texts.plan(&scans, Files::default(), &Promoted::new()).unwrap();
        let second = plan.write_segment(1, texts.part(1), &scans[1]).unwrap();
        assert_eq!(second, "a.mtpc1:\n\tret\n.Lmtpc1.x:\n\tjmp\t.Lmtpc1.x\n");
        let first = plan.write_segment(0, texts.part(0), &scans[0]).unwrap();
        assert_eq!(plan.join(&[&first, &second]), merge(&[part, part]).unwrap());
    }

    #[test]
    fn parts_that_are_not_ascii_are_written_apart_too() {
        // A comment of -fverbose-asm naming a byte of data, a file name: each
        // byte carried as a char, each part's segment written on its own.
        let table = "\t.file\t1 \"/d\" \"\u{e9}t\u{e9}.h\"\n";
        let files = Files { table: Some(table), compile_unit_directory: None };
        let other: Vec<u8> = b".Lx:\n\t.byte\t128\t# \x80\n\t.loc\t1 2 3\n\tjmp\t.Lx\n".to_vec();
        let ascii: Vec<u8> = b".Lx:\n\tret\n".to_vec();
        let parts = vec![ascii.clone(), other.clone()];
        let scans: Vec<PartScan> = parts.iter().map(|p| PartScan::of_bytes(p)).collect();
        let texts = TextsToMerge::new(parts.clone(), files);
        assert_eq!(texts.carried(), Carried::ByteForChar);
        let plan = texts.plan(&scans, files, &Promoted::new()).unwrap();
        let segments: Vec<String> = (0..2).map(|k| plan.write_segment(k, texts.part(k), &scans[k]).unwrap()).collect();
        let m = texts.carried().into_bytes(plan.join(&segments));
        let whole = [table.as_bytes(), b".Lmtpc0.x:\n\tret\n.Lmtpc1.x:\n\t.byte\t128\t# \x80\n\t.loc\t1 2 3\n\tjmp\t.Lmtpc1.x\n"].concat();
        assert_eq!(m.text, whole, "{:?}", String::from_utf8_lossy(&m.text));
        assert_eq!((m.table, m.segments.len()), (table.len(), 2));
        assert_eq!(&m.text[m.segments[1].clone()], &whole[table.len() + ".Lmtpc0.x:\n\tret\n".len()..]);
    }

    #[test]
    fn a_label_of_a_dropped_copy_referred_to_from_outside_it_is_an_error() {
        let group = "\t.section\t.text.f,\"axG\",@progbits,f,comdat\n\t.weak\tf\nf:\n.Lfoo:\n\tret\n";
        let e = merge(&[group.to_string(), format!("{group}\t.text\ng:\n\tjmp\t.Lfoo\n")]).unwrap_err();
        assert!(e.0.contains("part 1: .Lfoo is in a copy dropped for an earlier part's"), "{e}");
        // Referred to only from inside the dropped copy: gone with it.
        assert!(merge(&[group, group]).is_ok());
    }

    #[test]
    fn a_table_of_any_bytes_is_written_as_given_before_ascii_parts() {
        let table = "\t.file\t1 \"/d\" \"\u{e9}.c\"\n";
        let m = merge_bytes(&[b"\t.loc\t1 1 0\n"], Files { table: Some(table), compile_unit_directory: None }).unwrap();
        assert_eq!(&m.text[..m.table], table.as_bytes());
        assert_eq!(&m.text[m.segments[0].clone()], b"\t.loc\t1 1 0\n");
    }

    #[test]
    fn once_per_object_directives() {
        let part = "\t.ident\t\"clang version 16\"\n\t.addrsig\n\t.addrsig_sym f\n";
        let m = merged(&[part, part]);
        assert_eq!(m.matches(".ident").count(), 1);
        assert_eq!(m.matches("\t.addrsig\n").count(), 1);
        assert_eq!(m.matches(".addrsig_sym f").count(), 2);
        // What the transcript of the parts' objects states once.
        assert!(merge(&[part, part]).unwrap().address_significance);
        assert!(!merge(&["\t.addrsig_sym f\n"]).unwrap().address_significance);
    }

    /// A part of function `name` whose call frame information goes where
    /// its `.cfi_sections` line says (none: `.eh_frame`).
    fn part_with_frames(name: &str, cfi_sections: Option<&str>) -> String {
        let line = cfi_sections.map_or(String::new(), |s| format!("\t.cfi_sections\t{s}\n"));
        format!("\t.text\n{line}{name}:\n\t.cfi_startproc\n\tretq\n\t.cfi_endproc\n")
    }

    #[test]
    fn parts_that_put_call_frames_in_different_sections_are_refused() {
        // As the code generator prints a part of functions that neither
        // throw nor ask for unwind tables, with -g, and one of functions
        // that may throw (no line: .eh_frame).
        let (debug_only, eh) = (part_with_frames("f", Some(".debug_frame")), part_with_frames("g", None));
        let e = merge(&[eh.as_str(), debug_only.as_str()]).unwrap_err();
        assert!(e.0.contains("parts 0 and 1 put call frame information in different sections"), "{e}");
        // With -fforce-dwarf-frame: .debug_frame besides .eh_frame, however
        // written, is one choice; .debug_frame alone another.
        let both = part_with_frames("h", Some(".eh_frame, .debug_frame"));
        assert!(merge(&[both.as_str(), part_with_frames("i", Some(".debug_frame,.eh_frame")).as_str()]).is_ok());
        assert!(merge(&[both.as_str(), debug_only.as_str()]).is_err());
        // Parts alike merge, and so does a part without call frame information.
        let data = "\t.data\nx:\n\t.long\t1\n";
        assert!(merge(&[debug_only.as_str(), data, part_with_frames("j", Some(".debug_frame")).as_str()]).is_ok());
        assert!(merge(&[data, eh.as_str(), part_with_frames("k", None).as_str()]).is_ok());
    }
}
