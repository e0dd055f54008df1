//! A file in memory that a host given a path can open: `memfd_create`,
//! named by `/proc/self/fd/N`. The host's assembler reads a part's object
//! from one (`.incbin`, see `object_transcript`), after the pass that made
//! it has returned.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd};

/// An anonymous file holding some bytes.
pub struct MemoryFile {
    file: File,
}

impl MemoryFile {
    /// A file holding `bytes`, or why there is none (no `memfd_create`, or
    /// no `/proc` to name it by).
    pub fn with_bytes(bytes: &[u8]) -> Result<MemoryFile, String> {
        // SAFETY: a NUL-terminated name; the call returns a new descriptor
        // or -1.
        let fd = unsafe { libc::memfd_create(c"mtpc-part-object".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(format!("no file in memory ({})", std::io::Error::last_os_error()));
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns.
        let mut file = unsafe { File::from_raw_fd(fd) };
        file.write_all(bytes).map_err(|e| format!("cannot fill a file in memory ({e})"))?;
        let memory_file = MemoryFile { file };
        match std::fs::metadata(memory_file.path()) {
            Ok(m) if m.len() == bytes.len() as u64 => Ok(memory_file),
            _ => Err(format!("{} does not name the file in memory", memory_file.path())),
        }
    }

    /// The path the process opens it by.
    pub fn path(&self) -> String {
        format!("/proc/self/fd/{}", self.file.as_raw_fd())
    }

    /// Leaves the file open until the process exits: the host reads it
    /// after mtpc has returned, and calls nothing of mtpc's after. Only for
    /// a host that compiles one module and exits (clang -cc1).
    pub fn keep_until_exit(self) {
        let _descriptor = self.file.into_raw_fd();
    }
}
