//! Without a jobserver: one limit on the partition jobs that all mtpc
//! compiles of this user run at once on the machine.
//!
//! `ninja -jN`, or make recipes not marked `+`, run N compiles at once and
//! tell them nothing; each would start up to `MTPC_THREADS` partition jobs,
//! N times that many threads on N cores. Instead a partition job runs
//! holding one of `limit` machine-wide slots: lock files `slot-K` (K <
//! limit) in a directory of this user's alone (`mtpc-slots-UID` in the
//! temporary directory, mode 0700, not a symbolic link), a slot held as an
//! exclusive `flock` on its file. The kernel drops a lock when its file is
//! closed, so a compile that dies, however it dies, frees its slots:
//! nothing is left to clean up but the empty files.
//!
//! `MTPC_MACHINE_SLOTS=N` sets the limit (default: this machine's cores);
//! `0` turns it off. Under a make jobserver, make's tokens are the limit
//! instead (`worker`).

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The machine-wide slots, as this process sees them.
pub struct MachineSlots {
    dir: PathBuf,
    limit: usize,
    /// Where the next search for a free slot starts, so that the jobs of
    /// one process do not all try slot 0 first.
    next: AtomicUsize,
}

/// One slot, held until dropped (the lock goes with the file).
pub struct MachineSlot {
    _locked: File,
}

/// How long a job waits before looking for a free slot again, at most.
const LONGEST_POLL: Duration = Duration::from_millis(20);
/// After waiting this long, a job runs without a slot (with a warning):
/// a compile stopped while it holds slots (in a debugger, by Ctrl-Z) must
/// not stop every other. Partition jobs take seconds, not minutes.
const LONGEST_WAIT: Duration = Duration::from_secs(120);
/// `open(2)`'s flag refusing a symbolic link as the last component (Linux).
const O_NOFOLLOW: i32 = 0o400000;

impl MachineSlots {
    /// The slots the environment asks for (see the module comment); `None`
    /// if they are off or their directory cannot be used (with a warning).
    pub fn from_env() -> Result<Option<MachineSlots>, String> {
        let limit = crate::options::machine_slots_from_env()?;
        if limit == 0 {
            return Ok(None);
        }
        let dir = std::env::temp_dir().join(format!("mtpc-slots-{}", current_uid()));
        match MachineSlots::at(dir.clone(), limit) {
            Ok(slots) => Ok(Some(slots)),
            Err(e) => {
                log::warn!(
                    "cannot share partition jobs with other compiles through {} ({e}); this compile runs up to MTPC_THREADS of them whatever others run",
                    dir.display()
                );
                Ok(None)
            }
        }
    }

    /// `limit` slots in `dir`, created (mode 0700) if missing; it must be
    /// this user's own.
    pub fn at(dir: PathBuf, limit: usize) -> std::io::Result<MachineSlots> {
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        let meta = std::fs::symlink_metadata(&dir)?;
        if !meta.is_dir() || meta.uid() != current_uid() || meta.mode() & 0o077 != 0 {
            return Err(std::io::Error::other("not a directory of this user's alone"));
        }
        Ok(MachineSlots { dir, limit: limit.max(1), next: AtomicUsize::new(std::process::id() as usize) })
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Waits for a free slot and takes it. An error other than a slot in
    /// use (a file that cannot be opened, or [`LONGEST_WAIT`] passed) is
    /// returned: the caller then runs without the limit.
    pub fn take(&self) -> std::io::Result<MachineSlot> {
        let mut pause = Duration::from_millis(1);
        let start = std::time::Instant::now();
        loop {
            if start.elapsed() > LONGEST_WAIT {
                return Err(std::io::Error::other(format!(
                    "every slot in {} has been held for {} s",
                    self.dir.display(),
                    LONGEST_WAIT.as_secs()
                )));
            }
            let first = self.next.fetch_add(1, Ordering::Relaxed);
            for k in (0..self.limit).map(|i| (first + i) % self.limit) {
                if let Some(slot) = self.try_take(k)? {
                    return Ok(slot);
                }
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(LONGEST_POLL);
        }
    }

    /// Opens slot `k`'s file afresh: `flock` belongs to the open file, so
    /// one `File` shared by two jobs of this process would let both hold it.
    fn try_take(&self, k: usize) -> std::io::Result<Option<MachineSlot>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(O_NOFOLLOW)
            .open(self.dir.join(format!("slot-{k}")))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(MachineSlot { _locked: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }
}

/// This process's user id (the owner of `/proc/self`).
fn current_uid() -> u32 {
    std::fs::metadata("/proc/self").map_or(0, |m| m.uid())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mtpc-slots-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_held_slot_is_not_given_twice_and_dropping_frees_it() {
        let dir = temp_dir("held");
        // Two instances: two processes' views (flock locks conflict between
        // open files, also within one process).
        let a = MachineSlots::at(dir.clone(), 2).unwrap();
        let b = MachineSlots::at(dir.clone(), 2).unwrap();
        let first = a.take().unwrap();
        let second = b.take().unwrap();
        assert!((0..2).all(|k| b.try_take(k).unwrap().is_none()), "both slots are held");
        drop(first);
        assert!((0..2).any(|k| a.try_take(k).unwrap().is_some()), "a dropped slot is free again");
        drop(second);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_directory_of_another_kind_is_refused() {
        let file = temp_dir("file");
        std::fs::write(&file, b"").unwrap();
        assert!(MachineSlots::at(file.clone(), 2).is_err());
        std::fs::remove_file(file).unwrap();
    }
}
