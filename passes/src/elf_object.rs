//! A part's object as the join (`object_merge`) and the transcript
//! (`object_transcript`) read it: an x86-64 ELF relocatable object as LLVM's
//! MC layer writes it, parsed once by the `object` crate, with the few
//! lookups both need and one rule for each (groups, relocations).

use object::elf;
use object::read::elf::{FileHeader, Rel as _, Rela as _, SectionHeader as _, Sym as _};
use object::LittleEndian;

type Header = elf::FileHeader64<LittleEndian>;

pub type SectionHeader = elf::SectionHeader64<LittleEndian>;
pub type Symbol = elf::Sym64<LittleEndian>;

/// `SHT_LLVM_ADDRSIG`: the address-significance table.
pub const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;
/// `SHT_LLVM_CALL_GRAPH_PROFILE`: the call graph's edge weights (profiles).
pub const SHT_LLVM_CALL_GRAPH_PROFILE: u32 = 0x6fff_4c09;

/// A relocation of a section: where, which type, against which symbol (by
/// index), plus what.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Relocation {
    pub offset: u64,
    pub r_type: u32,
    pub symbol: usize,
    pub addend: i64,
}

/// A COMDAT group: its signature symbol (by index) and its member sections.
#[derive(Debug)]
pub struct Group {
    pub signature: usize,
    pub members: Vec<usize>,
}

pub struct ElfObject<'a> {
    pub data: &'a [u8],
    pub endian: LittleEndian,
    pub sections: object::read::elf::SectionTable<'a, Header>,
    pub symbols: object::read::elf::SymbolTable<'a, Header>,
}

impl<'a> ElfObject<'a> {
    /// `data` parsed; `Err` if it is not an x86-64 relocatable object, or has
    /// extended section indexes.
    pub fn parse(data: &'a [u8]) -> Result<ElfObject<'a>, String> {
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
        Ok(ElfObject { data, endian, sections, symbols })
    }

    pub fn section(&self, index: usize) -> Result<&'a SectionHeader, String> {
        self.sections.section(object::SectionIndex(index)).map_err(|e| format!("section {index}: {e}"))
    }

    pub fn section_name(&self, header: &SectionHeader) -> Result<String, String> {
        let name = self.sections.section_name(self.endian, header).map_err(|e| format!("a section name cannot be read ({e})"))?;
        String::from_utf8(name.to_vec()).map_err(|_| "a section name is not UTF-8".to_string())
    }

    pub fn section_bytes(&self, index: usize) -> Result<&'a [u8], String> {
        self.section(index)?.data(self.endian, self.data).map_err(|e| format!("section {index}: {e}"))
    }

    pub fn symbol(&self, index: usize) -> Result<&'a Symbol, String> {
        self.symbols.symbol(object::SymbolIndex(index)).map_err(|e| format!("symbol {index}: {e}"))
    }

    pub fn symbol_name(&self, index: usize) -> Result<&'a [u8], String> {
        self.symbols.symbol_name(self.endian, self.symbol(index)?).map_err(|e| format!("symbol {index}'s name: {e}"))
    }

    /// The section a symbol is defined in (a regular index), if any.
    pub fn defined_in(&self, symbol: &Symbol) -> Option<usize> {
        let shndx = symbol.st_shndx(self.endian);
        (shndx != elf::SHN_UNDEF && shndx < elf::SHN_LORESERVE).then_some(shndx as usize)
    }

    /// Whether `symbol` is a group's signature that the assembler made in
    /// the group section itself, no symbol of the object having defined it
    /// (C++ constructors and destructors of an explicit instantiation,
    /// `C5`/`D5`): a group's `.section` makes it again.
    pub fn names_its_group(&self, symbol: &Symbol) -> bool {
        self.defined_in(symbol).and_then(|s| self.section(s).ok()).is_some_and(|h| h.sh_type(self.endian) == elf::SHT_GROUP)
    }

    /// The object's COMDAT groups; `Err` for a group of another kind.
    pub fn groups(&self) -> Result<Vec<Group>, String> {
        let endian = self.endian;
        let mut groups = Vec::new();
        for (index, header) in self.sections.iter().enumerate().filter(|(_, h)| h.sh_type(endian) == elf::SHT_GROUP) {
            let (flag, members) = header
                .group(endian, self.data)
                .map_err(|e| format!("a group cannot be read ({e})"))?
                .ok_or("a group section has no members")?;
            if flag != elf::GRP_COMDAT {
                return Err(format!("section {index} is a group that is not a COMDAT"));
            }
            let members = members.iter().map(|m| m.get(endian) as usize).collect();
            groups.push(Group { signature: header.sh_info(endian) as usize, members });
        }
        Ok(groups)
    }

    /// The relocation sections that apply to section `index`.
    pub fn relocation_sections(&self, index: usize) -> impl Iterator<Item = &'a SectionHeader> + '_ {
        let endian = self.endian;
        self.sections
            .iter()
            .filter(move |h| matches!(h.sh_type(endian), elf::SHT_RELA | elf::SHT_REL) && h.sh_info(endian) as usize == index)
    }

    /// Whether relocations apply to section `index`.
    pub fn is_relocated(&self, index: usize) -> bool {
        self.relocation_sections(index).next().is_some()
    }

    /// The relocations of relocation section `header`, explicit addends or
    /// implicit (as 0: the assembler writes implicit ones only where the
    /// addend is none, the call graph profile's).
    pub fn relocations(&self, header: &SectionHeader) -> Result<Vec<Relocation>, String> {
        let endian = self.endian;
        let unreadable = |e: object::read::Error| format!("relocations cannot be read ({e})");
        let mut out = Vec::new();
        if let Some((rels, _)) = header.rel(endian, self.data).map_err(unreadable)? {
            out.extend(rels.iter().map(|r| Relocation {
                offset: r.r_offset(endian),
                r_type: r.r_type(endian),
                symbol: r.r_sym(endian) as usize,
                addend: 0,
            }));
        }
        if let Some((relas, _)) = header.rela(endian, self.data).map_err(unreadable)? {
            out.extend(relas.iter().map(|r| Relocation {
                offset: r.r_offset(endian),
                r_type: r.r_type(endian, false),
                symbol: r.r_sym(endian, false) as usize,
                addend: r.r_addend(endian),
            }));
        }
        Ok(out)
    }
}
