//! Merges the assembly of several partitions into one text that assembles
//! into one object (ELF, AT&T syntax, as `llc` prints it).
//!
//! Each part was printed as if it were the only one in its object, so
//! concatenating them needs four fixes (see shared/design/HOST-FACTS.md):
//! - private labels (`.L...`) are made unique per part;
//! - the DWARF file tables (`.file N ...`) become one table and every
//!   `.loc` is renumbered to it; the root file (`.file 0`) appears once;
//! - a reference to a section's start by the section's name (the compile
//!   unit header's `.long .debug_abbrev`) assumes one unit per object: it
//!   becomes a label at the start of that part's contribution;
//! - sections of a COMDAT group that several parts emit (the code
//!   generator's `DW.ref.__gxx_personality_v0`) are kept from the first
//!   part only, as are the once-per-object directives (`.file "name"`,
//!   `.ident`, `.addrsig`);
//! - local symbols the code generator numbers per object (such as
//!   `GCC_except_table1`) that several parts define are renamed per part;
//! - MD5 checksums are dropped from the file table unless every entry has
//!   one (DWARF 5 needs all or none; the assembler would drop them anyway,
//!   with a warning).
//!
//! The output depends only on the parts and their order.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

/// One DWARF file-table entry: directory, name and the rest (checksum, source).
type FileKey = (String, String, String);

#[derive(Debug, PartialEq, Eq)]
pub struct MergeError(pub String);

impl std::fmt::Display for MergeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Merges parts given as bytes: assembly is ASCII, but string data may
/// hold any byte, so each byte is carried as the char of the same value.
pub fn merge_bytes<B: AsRef<[u8]>>(parts: &[B]) -> Result<Vec<u8>, MergeError> {
    let texts: Vec<String> = parts.iter().map(|p| p.as_ref().iter().map(|&b| char::from(b)).collect()).collect();
    // Every char came from one byte, so it converts back exactly.
    Ok(merge(&texts)?.chars().map(|c| c as u8).collect())
}

/// Merges the parts, in order, into one assembly text.
pub fn merge<S: AsRef<str>>(parts: &[S]) -> Result<String, MergeError> {
    let texts: Vec<&str> = parts.iter().map(|p| p.as_ref()).collect();
    let mut state = MergeState {
        colliding_locals: colliding_local_symbols(&texts),
        keep_md5: every_file_entry_has_md5(&texts),
        ..Default::default()
    };
    let mut out = String::with_capacity(parts.iter().map(|p| p.as_ref().len()).sum::<usize>() + 1024);
    for (k, part) in parts.iter().enumerate() {
        state.merge_part(k, part.as_ref(), &mut out)?;
    }
    Ok(out)
}

#[derive(Default)]
struct MergeState {
    /// The merged DWARF file table.
    files: HashMap<FileKey, u32>,
    next_file: u32,
    root_file: Option<FileKey>,
    /// COMDAT groups already emitted, by signature.
    comdat_groups: HashSet<String>,
    /// Once-per-object directives already emitted.
    once: HashSet<String>,
    /// Local (non-`.L`) symbols that more than one part defines.
    colliding_locals: HashSet<String>,
    keep_md5: bool,
}

/// Symbols defined (`name:` at the start of a line) and made global
/// (`.globl`, `.weak`) by one part.
fn defined_and_global(text: &str) -> (HashSet<&str>, HashSet<&str>) {
    let (mut defined, mut global) = (HashSet::new(), HashSet::new());
    for line in text.lines() {
        let t = strip_comment(line).trim();
        if let Some(name) = t.strip_suffix(':') {
            if !name.is_empty() && name.bytes().all(is_symbol_char) {
                defined.insert(name);
            }
        } else if let Some(rest) = t.strip_prefix(".globl").or_else(|| t.strip_prefix(".weak")) {
            global.insert(rest.trim());
        }
    }
    (defined, global)
}

/// Local symbols, other than private labels, defined by more than one part.
fn colliding_local_symbols(parts: &[&str]) -> HashSet<String> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for part in parts {
        let (defined, global) = defined_and_global(part);
        for name in defined {
            if !name.starts_with(".L") && !global.contains(name) && !name.bytes().all(|b| b.is_ascii_digit()) {
                *seen.entry(name).or_default() += 1;
            }
        }
    }
    seen.into_iter().filter(|&(_, n)| n > 1).map(|(name, _)| name.to_string()).collect()
}

/// True unless some `.file N` entry has an MD5 checksum and another has none.
fn every_file_entry_has_md5(parts: &[&str]) -> bool {
    let entries = parts.iter().flat_map(|p| p.lines()).map(|l| strip_comment(l).trim()).filter(|l| {
        l.strip_prefix(".file").map_or(false, |r| r.trim_start().starts_with(|c: char| c.is_ascii_digit()))
    });
    let (mut with, mut without) = (false, false);
    for e in entries {
        if e.split_whitespace().any(|w| w == "md5") {
            with = true;
        } else {
            without = true;
        }
    }
    !(with && without)
}

/// The operands of a `.file N` entry without `md5 0x...`.
fn without_md5(operands: &str) -> String {
    let mut words = operands.split(' ').peekable();
    let mut out = Vec::new();
    while let Some(w) = words.next() {
        if w == "md5" {
            words.next();
        } else {
            out.push(w);
        }
    }
    out.join(" ")
}

impl MergeState {
    fn merge_part(&mut self, k: usize, text: &str, out: &mut String) -> Result<(), MergeError> {
        let label_prefix = format!(".Lmtpc{k}.");
        // Sections this part switches to, for section-start references.
        let section_starts = sections_with_content(text);
        let mut file_map: BTreeMap<u32, u32> = BTreeMap::new();
        // Sections whose start label this part has placed.
        let mut started: HashSet<String> = HashSet::new();
        // COMDAT groups this part emits (recorded in `self` after the part,
        // since a part may switch to the same group more than once).
        let mut own_groups: HashSet<String> = HashSet::new();
        let mut skipping_group = false;
        for (line_no, raw) in text.lines().enumerate() {
            let line = strip_comment(raw);
            let trimmed = line.trim_start();
            let directive = trimmed.split(|c: char| c.is_whitespace()).next().unwrap_or("");
            if is_section_switch(directive) {
                skipping_group = match comdat_group(trimmed).filter(|_| directive == ".section") {
                    Some(group) if self.comdat_groups.contains(group) => true,
                    Some(group) => {
                        own_groups.insert(group.to_string());
                        false
                    }
                    None => false,
                };
            }
            // A repeated group's contents go; directives about symbols do
            // not belong to the section and stay (an alias's `.set` may follow).
            if skipping_group && !SYMBOL_DIRECTIVES.contains(&directive) {
                continue;
            }
            match directive {
                ".file" => {
                    self.file_directive(trimmed, &mut file_map, out)
                        .map_err(|e| MergeError(format!("part {k}, line {}: {e}", line_no + 1)))?;
                    continue;
                }
                ".loc" => {
                    let rest = trimmed[".loc".len()..].trim_start();
                    let (num, tail) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len()));
                    let n: u32 = num
                        .parse()
                        .map_err(|_| MergeError(format!("part {k}, line {}: bad .loc: {raw}", line_no + 1)))?;
                    let mapped = file_map.get(&n).copied().ok_or_else(|| {
                        MergeError(format!("part {k}, line {}: .loc names file {n} before its .file", line_no + 1))
                    })?;
                    let _ = writeln!(out, "\t.loc\t{mapped}{tail}");
                    continue;
                }
                ".ident" | ".addrsig" => {
                    if self.once.insert(trimmed.to_string()) {
                        out.push_str(raw);
                        out.push('\n');
                    }
                    continue;
                }
                _ => {}
            }
            rename_line(raw, &Renames { label_prefix: &label_prefix, section_starts: &section_starts, locals: &self.colliding_locals, part: k }, out);
            out.push('\n');
            if directive == ".section" {
                let name = section_name(trimmed);
                if section_starts.contains(name) && started.insert(name.to_string()) {
                    let _ = writeln!(out, "{}:", section_start_label(k, name));
                }
            }
        }
        self.comdat_groups.extend(own_groups);
        Ok(())
    }

    /// `.file "name"`, `.file 0 "dir" "name" md5 ...`, `.file N "dir" "name" ...`
    fn file_directive(&mut self, line: &str, map: &mut BTreeMap<u32, u32>, out: &mut String) -> Result<(), String> {
        let rest = line[".file".len()..].trim_start();
        if rest.starts_with('"') {
            // The object's STT_FILE symbol: once.
            if self.once.insert(line.to_string()) {
                let _ = writeln!(out, "\t{line}");
            }
            return Ok(());
        }
        let (num, tail) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len()));
        let n: u32 = num.parse().map_err(|_| format!("bad .file directive: {line}"))?;
        let tail = if self.keep_md5 { tail.trim().to_string() } else { without_md5(tail.trim()) };
        let tail = tail.as_str();
        let key = file_key(tail).ok_or_else(|| format!("bad .file directive: {line}"))?;
        if n == 0 {
            match &self.root_file {
                None => {
                    self.root_file = Some(key.clone());
                    let _ = writeln!(out, "\t.file\t0 {}", tail.trim());
                    map.insert(0, 0);
                    return Ok(());
                }
                Some(root) if *root == key => {
                    map.insert(0, 0);
                    return Ok(());
                }
                // A different root: an ordinary entry of the merged table.
                Some(_) => {}
            }
        }
        let merged = match self.files.get(&key) {
            Some(&m) => m,
            None => {
                self.next_file += 1;
                let m = self.next_file;
                self.files.insert(key, m);
                let _ = writeln!(out, "\t.file\t{m} {}", tail.trim());
                m
            }
        };
        map.insert(n, merged);
        Ok(())
    }
}

/// Directives that say something about a symbol, not the current section.
const SYMBOL_DIRECTIVES: &[&str] = &[
    ".set", ".equ", ".equiv", ".globl", ".global", ".weak", ".hidden", ".protected", ".internal", ".local", ".type",
    ".size", ".symver", ".addrsig_sym",
];

fn is_section_switch(directive: &str) -> bool {
    matches!(directive, ".section" | ".text" | ".data" | ".bss" | ".pushsection" | ".popsection" | ".previous")
}

/// The section name of a `.section` directive.
fn section_name(line: &str) -> &str {
    let rest = line[".section".len()..].trim_start();
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next().unwrap_or("");
    }
    rest.split(|c: char| c == ',' || c.is_whitespace()).next().unwrap_or("")
}

/// The group signature of `.section name,"flagsG",@type,GROUP,comdat`.
fn comdat_group(line: &str) -> Option<&str> {
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    if fields.last() != Some(&"comdat") || fields.len() < 5 {
        return None;
    }
    Some(fields[fields.len() - 2].trim_matches('"'))
}

/// Debug sections a part switches to (so that it has a contribution of its own).
fn sections_with_content(text: &str) -> HashSet<String> {
    text.lines()
        .map(|l| l.trim_start())
        .filter(|l| l.starts_with(".section"))
        .map(section_name)
        .filter(|n| n.starts_with(".debug_"))
        .map(str::to_string)
        .collect()
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
    part: usize,
}

/// Copies `line` to `out`, renaming private labels, colliding locals and
/// section-start references outside strings and comments.
fn rename_line(line: &str, r: &Renames<'_>, out: &mut String) {
    let bytes = line.as_bytes();
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
            b'"' => {
                in_string = true;
                i += 1;
            }
            b'#' => break,
            _ if is_symbol_char(c) && (i == 0 || !is_symbol_char(bytes[i - 1])) => {
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
}

fn is_section_directive(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with(".section") || t.starts_with(".pushsection")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn private_labels_are_unique_per_part() {
        let a = "f:\n.Ltmp0:\n\tjmp .LBB0_1\n.LBB0_1:\n\tret\n";
        let b = "g:\n.Ltmp0:\n\tjmp .LBB0_1\n.LBB0_1:\n\tret\n";
        let m = merge(&[a, b]).unwrap();
        assert!(m.contains(".Lmtpc0.tmp0:") && m.contains(".Lmtpc1.tmp0:"), "{m}");
        assert!(m.contains("jmp .Lmtpc1.BB0_1"), "{m}");
        assert!(!m.contains(".Ltmp0"), "{m}");
    }

    #[test]
    fn strings_and_comments_are_not_renamed() {
        let a = "\t.asciz\t\".Lnot_a_label # nor a comment\"\t# .Lcomment\n";
        let m = merge(&[a]).unwrap();
        assert_eq!(m, "\t.asciz\t\".Lnot_a_label # nor a comment\"\t# .Lcomment\n");
    }

    #[test]
    fn one_file_table_and_loc_renumbered() {
        let a = "\t.file\t\"x.c\"\n\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t1 \"/d\" \"x.h\" md5 0x02\n\t.loc\t1 3 0\n\t.loc\t0 7 2 prologue_end\n";
        let b = "\t.file\t\"x.c\"\n\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t1 \"/d\" \"y.h\" md5 0x03\n\t.file\t2 \"/d\" \"x.h\" md5 0x02\n\t.loc\t1 4 0\n\t.loc\t2 5 0\n";
        let m = merge(&[a, b]).unwrap();
        assert_eq!(m.matches(".file\t\"x.c\"").count(), 1, "{m}");
        assert_eq!(m.matches(".file\t0 ").count(), 1, "{m}");
        assert!(m.contains(".file\t1 \"/d\" \"x.h\" md5 0x02"), "{m}");
        assert!(m.contains(".file\t2 \"/d\" \"y.h\" md5 0x03"), "{m}");
        // b's file 1 (y.h) is merged file 2, its file 2 (x.h) is file 1.
        assert!(m.contains("\t.loc\t2 4 0\n\t.loc\t1 5 0\n"), "{m}");
        assert!(m.contains("\t.loc\t0 7 2 prologue_end"), "{m}");
    }

    #[test]
    fn loc_before_file_is_an_error() {
        let e = merge(&["\t.loc\t3 1 0\n"]).unwrap_err();
        assert!(e.0.contains("file 3 before its .file"), "{e}");
    }

    #[test]
    fn abbrev_section_references_become_part_labels() {
        let part = "\t.section\t.debug_abbrev,\"\",@progbits\n\t.byte\t1\n\t.section\t.debug_info,\"\",@progbits\n\t.long\t.debug_abbrev\n";
        let m = merge(&[part, part]).unwrap();
        assert!(m.contains(".debug_abbrev,\"\",@progbits\n.Lmtpc0.start.debug_abbrev:\n"), "{m}");
        assert!(m.contains("\t.long\t.Lmtpc1.start.debug_abbrev\n"), "{m}");
        assert!(!m.contains("\t.long\t.debug_abbrev"), "{m}");
    }

    #[test]
    fn repeated_comdat_groups_are_kept_once() {
        let part = |k: u32| {
            format!(
                "\t.text\nf{k}:\n\tret\n\t.section\t.data.DW.ref.p,\"awG\",@progbits,DW.ref.p,comdat\n\t.weak\tDW.ref.p\nDW.ref.p:\n\t.quad\tp\n\t.text\ng{k}:\n\tret\n"
            )
        };
        let with_alias = part(1).replace("\t.quad\tp\n", "\t.quad\tp\n\t.globl\talias1\n.set alias1, g1\n");
        let m = merge(&[part(0), with_alias]).unwrap();
        assert_eq!(m.matches("DW.ref.p:").count(), 1, "{m}");
        assert!(m.contains("f1:") && m.contains("g1:"), "{m}");
        // Directives about symbols after a skipped group are kept.
        assert!(m.contains(".set alias1, g1"), "{m}");
    }

    #[test]
    fn colliding_local_symbols_are_renamed_per_part() {
        let part = "\t.section\t.gcc_except_table,\"a\",@progbits\nGCC_except_table1:\n\t.byte\t255\n\t.long\tGCC_except_table1\nshared:\n";
        let global = "\t.globl\tshared\nshared:\n";
        let m = merge(&[part, part, global]).unwrap();
        assert!(m.contains("GCC_except_table1.mtpc0:") && m.contains("GCC_except_table1.mtpc1:"), "{m}");
        assert!(m.contains(".long\tGCC_except_table1.mtpc1"), "{m}");
        assert!(!m.contains("\nGCC_except_table1:"), "{m}");
    }

    #[test]
    fn md5_dropped_unless_every_entry_has_one() {
        let a = "\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t1 \"/d\" \"x.h\"\n";
        let m = merge(&[a]).unwrap();
        assert!(!m.contains("md5"), "{m}");
        let b = "\t.file\t0 \"/d\" \"x.c\" md5 0x01\n\t.file\t1 \"/d\" \"x.h\" md5 0x02\n";
        assert_eq!(merge(&[b]).unwrap().matches("md5").count(), 2);
    }

    #[test]
    fn any_byte_survives() {
        let part: Vec<u8> = b"\t.ascii\t\"\xff\x80\xe9\"\n.Lx:\n".to_vec();
        let m = merge_bytes(&[part]).unwrap();
        assert_eq!(m, b"\t.ascii\t\"\xff\x80\xe9\"\n.Lmtpc0.x:\n".to_vec());
    }

    #[test]
    fn once_per_object_directives() {
        let part = "\t.ident\t\"clang version 16\"\n\t.addrsig\n\t.addrsig_sym f\n";
        let m = merge(&[part, part]).unwrap();
        assert_eq!(m.matches(".ident").count(), 1);
        assert_eq!(m.matches("\t.addrsig\n").count(), 1);
        assert_eq!(m.matches(".addrsig_sym f").count(), 2);
    }
}
