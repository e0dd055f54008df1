//! A file in memory that a host given a path can open: `memfd_create`,
//! named by `/proc/self/fd/N`. The host's assembler reads a part's larger
//! sections from one (`.incbin`, see `object_transcript`), after the pass
//! that made it has returned.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd};
use std::sync::Mutex;
use std::thread::ThreadId;

use once_cell::sync::Lazy;

/// An anonymous file holding some bytes.
pub struct MemoryFile {
    file: File,
}

/// LLVM 16 reads a file for `.incbin` whole, every time, and maps it only
/// if it is at least this long and not a whole number of pages; else it
/// copies it. A file is padded so that it is mapped.
const MAPPED_AT_LEAST: usize = 16 * 1024;
const PAGE: usize = 4096;

/// The files the host reads the last module's transcript from, by the
/// thread that compiles it: open until that thread hands over the next
/// module's (the host has read them by then: clang's code generation of a
/// module follows its optimization on the same thread, and mtpc hands
/// files over only to clang -cc1, which compiles one module at a time), or
/// until the process exits.
static HANDED_TO_HOST: Lazy<Mutex<HashMap<ThreadId, Vec<MemoryFile>>>> = Lazy::new(Default::default);

impl MemoryFile {
    /// A file holding `bytes` (then zeros, see [`MAPPED_AT_LEAST`]), or why
    /// there is none (no `memfd_create`, or no `/proc` to name it by).
    pub fn with_bytes(bytes: &[u8]) -> Result<MemoryFile, String> {
        // SAFETY: a NUL-terminated name; the call returns a new descriptor
        // or -1.
        let fd = unsafe { libc::memfd_create(c"mtpc-part-object".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(format!("no file in memory ({})", std::io::Error::last_os_error()));
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns.
        let mut file = unsafe { File::from_raw_fd(fd) };
        let mut len = bytes.len().max(MAPPED_AT_LEAST);
        if len % PAGE == 0 {
            len += 1;
        }
        file.write_all(bytes)
            .and_then(|()| file.write_all(&vec![0; len - bytes.len()]))
            .map_err(|e| format!("cannot fill a file in memory ({e})"))?;
        let memory_file = MemoryFile { file };
        match std::fs::metadata(memory_file.path()) {
            Ok(m) if m.len() == len as u64 => Ok(memory_file),
            _ => Err(format!("{} does not name the file in memory", memory_file.path())),
        }
    }

    /// The path the process opens it by.
    pub fn path(&self) -> String {
        format!("/proc/self/fd/{}", self.file.as_raw_fd())
    }

    /// Keeps `files` open for the host, which reads them after mtpc has
    /// returned, and closes those of the module this thread handed over
    /// before.
    pub fn hand_to_host(files: Vec<MemoryFile>) {
        let mut handed = HANDED_TO_HOST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        handed.insert(std::thread::current().id(), files);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_in_memory_holds_the_bytes_padded_to_be_mapped() {
        for size in [10, PAGE * 4, PAGE * 8 - 3] {
            let bytes: Vec<u8> = (0..size).map(|i| i as u8).collect();
            let file = MemoryFile::with_bytes(&bytes).unwrap();
            let read = std::fs::read(file.path()).unwrap();
            assert_eq!(&read[..size], &bytes[..], "{size}");
            assert!(read.len() >= MAPPED_AT_LEAST && read.len() % PAGE != 0, "{size}: {}", read.len());
            assert!(read[size..].iter().all(|&b| b == 0));
        }
    }
}
