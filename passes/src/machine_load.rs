//! How many cores the rest of the machine leaves free, right now.
//!
//! Splitting a module pays only if its partitions run side by side; on a
//! machine whose cores other work keeps busy (the other compiles of a
//! `make -jN` or `ninja -jN` build, lld's other ThinLTO backends), they
//! would run one after another, and the compile would do the split's extra
//! work (the copies each partition optimizes, the text assembled again) for
//! nothing. So before a split, the cost model asks how many threads of the
//! machine are runnable besides the one asking: the tasks in state `R` of
//! every process this one can see (`/proc/PID/task/TID/stat`; a container
//! sees its own), kernel threads aside, that last ran on a CPU this
//! process may use. It looks a few times, a few milliseconds apart, and
//! counts the fewest seen, so that a process that runs for an instant (the
//! build tool starting the next job) is not taken for load.
//!
//! It is one moment's view: a module whose back end starts while the
//! others still run is compiled whole, even if they end soon after (but
//! for its code generation, whose partitions may wait for a core to free:
//! `FreedCore`).
//! The object then depends on the moment it is compiled (whole on a busy
//! machine, split on an idle one): `MTPC_LOAD_AWARE=0`, or
//! `SOURCE_DATE_EPOCH` (set by reproducible-build tooling), turns this off
//! (`options::load_aware_from_env`).

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What the machine looked like when the model asked.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MachineLoad {
    /// The cores this process may use.
    pub cores: usize,
    /// Threads of other work that were runnable (the fewest of the looks).
    pub busy: usize,
}

/// Looks taken, and the pause between two.
const LOOKS: usize = 3;
const PAUSE: Duration = Duration::from_millis(3);
/// `PF_KTHREAD` in the flags field of `/proc/.../stat`.
const KERNEL_THREAD: u64 = 0x0020_0000;

impl MachineLoad {
    /// Samples the machine (see the module comment); `None` if `/proc`
    /// cannot be read (then the model plans as for an idle machine).
    pub fn sample() -> Option<MachineLoad> {
        MachineLoad::looks(LOOKS, &[])
    }

    /// One look, not counting the tasks `besides` (this compile's own
    /// workers, as `/proc/thread-self` names them: `PID/task/TID`): for a
    /// watch that looks again and again (`FreedCore`).
    pub fn glance_besides(besides: &[PathBuf]) -> Option<MachineLoad> {
        MachineLoad::looks(1, besides)
    }

    fn looks(looks: usize, besides: &[PathBuf]) -> Option<MachineLoad> {
        let cores = crate::options::available_cores();
        let me = std::fs::read_link("/proc/thread-self").ok()?;
        let ours = our_cpus();
        let mut busy = usize::MAX;
        for look in 0..looks {
            if look > 0 {
                std::thread::sleep(PAUSE);
            }
            busy = busy.min(busy_threads(&me, besides, ours.as_deref())?);
            if busy == 0 {
                break;
            }
        }
        Some(MachineLoad { cores, busy })
    }

    /// Threads partitions can have side by side: at most `threads`, and no
    /// more than the cores left free (counting the one this compile runs on).
    pub fn lanes(&self, threads: usize) -> usize {
        threads.min(self.cores.saturating_sub(self.busy)).max(1)
    }
}

/// Watches, while a compile's jobs run one at a time on a busy machine,
/// for a core other work frees: one more job may start once two looks in
/// a row, `FreedCore::POLL` apart, see more cores free than the compile's
/// jobs take, so that a build tool's next job starting in the instant
/// between two compiles is not taken for a free core.
#[derive(Debug, Default)]
pub struct FreedCore {
    /// The last look, if it saw a core free: when, and for how many jobs.
    free_at: Option<(Instant, usize)>,
}

impl FreedCore {
    /// How often to look while jobs wait.
    pub const POLL: Duration = Duration::from_millis(200);

    /// Whether one more job may start, given a look at the load taken at
    /// `now` (other work only: the compile's own running jobs not counted;
    /// `None`: `/proc` unreadable, never) and the compile's jobs in flight.
    /// The look before counts only if it was the last poll's, for as many
    /// jobs.
    pub fn look(&mut self, load: Option<MachineLoad>, jobs: usize, now: Instant) -> bool {
        let free = load.is_some_and(|load| load.cores.saturating_sub(load.busy) > jobs);
        let seen_before = self.free_at.is_some_and(|(at, then)| then == jobs && now.saturating_duration_since(at) <= 2 * Self::POLL);
        let one_more = free && seen_before;
        // Once a job more starts, it takes two looks again for the next.
        self.free_at = (free && !one_more).then_some((now, jobs));
        one_more
    }
}

/// The threads of other work in `/proc` that compete for this process's
/// CPUs. Processes and threads that end while being read are skipped.
fn busy_threads(me: &Path, besides: &[PathBuf], ours: Option<&[bool]>) -> Option<usize> {
    let mut busy = 0;
    for process in std::fs::read_dir("/proc").ok()?.flatten() {
        if !process.file_name().to_str().is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())) {
            continue;
        }
        let Ok(tasks) = std::fs::read_dir(process.path().join("task")) else { continue };
        for task in tasks.flatten() {
            let path = task.path();
            let Ok(task_id) = path.strip_prefix("/proc") else { continue };
            let Ok(stat) = std::fs::read_to_string(path.join("stat")) else { continue };
            busy += usize::from(competes(task_id, &stat, me, besides, ours));
        }
    }
    Some(busy)
}

/// Whether the task `task` (`PID/task/TID`), with this `stat` line,
/// competes with the thread `me` for the CPUs `ours` (`None`: all): it is
/// runnable, not `me` nor among `besides`, not a kernel thread, and last
/// ran on one of them (a job pinned to other CPUs, as under Slurm or
/// `taskset`, does not take ours).
fn competes(task: &Path, stat: &str, me: &Path, besides: &[PathBuf], ours: Option<&[bool]>) -> bool {
    let Some(fields) = StatFields::parse(stat) else { return false };
    let on_ours = ours.is_none_or(|cpus| cpus.get(fields.processor).copied().unwrap_or(false));
    fields.state == 'R' && fields.flags & KERNEL_THREAD == 0 && task != me && !besides.iter().any(|b| b == task) && on_ours
}

/// The fields of a `/proc/.../stat` line mtpc reads.
#[derive(Debug, PartialEq)]
struct StatFields {
    state: char,
    flags: u64,
    /// The CPU the task last ran on.
    processor: usize,
}

impl StatFields {
    /// The command name (field 2, in parentheses) may hold spaces and
    /// parentheses itself, so the fields after it are counted from the
    /// last `)`: state is field 3, flags 9, processor 39.
    fn parse(line: &str) -> Option<StatFields> {
        let after_name = &line[line.rfind(')')? + 1..];
        let fields: Vec<&str> = after_name.split_ascii_whitespace().collect();
        let field = |n: usize| fields.get(n - 3).copied();
        Some(StatFields {
            state: field(3)?.chars().next()?,
            flags: field(9)?.parse().ok()?,
            processor: field(39)?.parse().ok()?,
        })
    }
}

/// The CPUs this process may run on (`Cpus_allowed_list` of
/// `/proc/self/status`), as a membership table; `None` if unreadable.
fn our_cpus() -> Option<Vec<bool>> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let list = status.lines().find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    parse_cpu_list(list.trim())
}

/// A kernel CPU list (`0-3,8,10-11`) as a membership table.
fn parse_cpu_list(list: &str) -> Option<Vec<bool>> {
    let mut cpus = Vec::new();
    for range in list.split(',').filter(|r| !r.is_empty()) {
        let (first, last) = match range.split_once('-') {
            Some((a, b)) => (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?),
            None => (range.parse().ok()?, range.parse().ok()?),
        };
        if first > last {
            return None;
        }
        if last >= cpus.len() {
            cpus.resize(last + 1, false);
        }
        cpus[first..=last].iter_mut().for_each(|c| *c = true);
    }
    Some(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stat line of 52 fields with these state, flags and processor.
    fn stat(name: &str, state: char, flags: u64, processor: usize) -> String {
        let mut fields: Vec<String> = (4..=52).map(|_| "0".to_string()).collect();
        fields[9 - 4] = flags.to_string();
        fields[39 - 4] = processor.to_string();
        format!("1234 ({name}) {state} {}", fields.join(" "))
    }

    #[test]
    fn stat_lines_are_read_past_awkward_command_names() {
        let line = stat("cc1 (x) y)", 'R', 4_194_304, 3);
        assert_eq!(StatFields::parse(&line), Some(StatFields { state: 'R', flags: 4_194_304, processor: 3 }));
        assert_eq!(StatFields::parse("1234 (truncated"), None);
        assert_eq!(StatFields::parse("1234 (x) R 1 2"), None);
    }

    #[test]
    fn only_other_runnable_user_threads_on_our_cpus_compete() {
        let me = Path::new("100/task/101");
        let other = Path::new("200/task/200");
        let ours = parse_cpu_list("0-1").unwrap();
        let runnable = stat("clang", 'R', 4_194_304, 1);
        assert!(competes(other, &runnable, me, &[], Some(&ours)));
        assert!(!competes(me, &runnable, me, &[], Some(&ours)), "the thread asking");
        let worker = Path::new("100/task/102");
        assert!(competes(worker, &runnable, me, &[], Some(&ours)), "another thread of this process");
        assert!(!competes(worker, &runnable, me, &[worker.to_path_buf()], Some(&ours)), "one running this compile's job");
        assert!(!competes(other, &stat("clang", 'S', 4_194_304, 1), me, &[], Some(&ours)), "sleeping");
        assert!(!competes(other, &stat("kworker/0:1", 'R', 0x0420_8060, 0), me, &[], Some(&ours)), "a kernel thread");
        assert!(!competes(other, &stat("clang", 'R', 4_194_304, 5), me, &[], Some(&ours)), "on a CPU this process may not use");
        assert!(competes(other, &stat("clang", 'R', 4_194_304, 5), me, &[], None), "CPUs unknown: every runnable thread");
    }

    #[test]
    fn cpu_lists_are_read_as_the_kernel_writes_them() {
        let cpus = parse_cpu_list("0-2,5,7-8").unwrap();
        let members: Vec<usize> = (0..cpus.len()).filter(|&c| cpus[c]).collect();
        assert_eq!(members, [0, 1, 2, 5, 7, 8]);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(parse_cpu_list("3-1"), None);
    }

    #[test]
    fn lanes_are_the_cores_other_work_leaves_free() {
        let idle = MachineLoad { cores: 8, busy: 0 };
        assert_eq!(idle.lanes(8), 8);
        assert_eq!(idle.lanes(4), 4, "never more than the threads asked for");
        assert_eq!(idle.lanes(16), 8, "nor than the cores");
        assert_eq!(MachineLoad { cores: 8, busy: 5 }.lanes(8), 3);
        assert_eq!(MachineLoad { cores: 2, busy: 1 }.lanes(2), 1, "a ninja -j2 build's other compile");
        assert_eq!(MachineLoad { cores: 2, busy: 9 }.lanes(2), 1, "overloaded: still this compile's own thread");
    }

    #[test]
    fn a_job_more_starts_after_two_looks_in_a_row_see_a_core_free() {
        let (busy, one_free) = (Some(MachineLoad { cores: 2, busy: 1 }), Some(MachineLoad { cores: 2, busy: 0 }));
        let t0 = Instant::now();
        let poll = |n: u32| t0 + FreedCore::POLL * n;
        let mut watch = FreedCore::default();
        assert!(!watch.look(busy, 1, poll(1)), "the other compile still runs");
        assert!(!watch.look(one_free, 1, poll(2)), "one look: maybe the build tool's next job starting");
        assert!(!watch.look(busy, 1, poll(3)), "it was");
        assert!(!watch.look(one_free, 1, poll(4)));
        assert!(watch.look(one_free, 1, poll(5)), "free on two looks in a row");
        assert!(!watch.look(one_free, 2, poll(6)), "the job more now takes it");
        assert!(!watch.look(None, 1, poll(7)), "/proc unreadable: never");
        let mut stale = FreedCore::default();
        assert!(!stale.look(one_free, 1, poll(1)));
        assert!(!stale.look(one_free, 1, poll(9)), "the look before was not the last poll's");
        assert!(!stale.look(one_free, 0, poll(10)), "nor for as many jobs");
        let mut wide = FreedCore::default();
        let three_free = Some(MachineLoad { cores: 8, busy: 5 });
        assert!(!wide.look(three_free, 1, poll(1)));
        assert!(wide.look(three_free, 1, poll(2)));
        assert!(!wide.look(three_free, 2, poll(3)), "two looks again for each job more");
        assert!(wide.look(three_free, 2, poll(4)));
        assert!(!wide.look(three_free, 3, poll(5)), "no more free than the jobs take");
        assert!(!wide.look(three_free, 3, poll(6)));
    }

    #[test]
    fn a_thread_names_itself_as_the_scan_of_proc_names_it() {
        // The tasks left out are named by /proc/thread-self, the scan's by
        // /proc/PID/task/TID less "/proc": the same form, for a thread alive.
        let (named, stop) = (std::sync::mpsc::channel(), std::sync::mpsc::channel::<()>());
        let (tx, rx) = named;
        let (stop_tx, stop_rx) = stop;
        let thread = std::thread::spawn(move || {
            tx.send(std::fs::read_link("/proc/thread-self").unwrap()).unwrap();
            let _ = stop_rx.recv();
        });
        let task = rx.recv().unwrap();
        let scanned: Vec<PathBuf> = std::fs::read_dir(format!("/proc/{}/task", std::process::id()))
            .unwrap()
            .flatten()
            .map(|t| t.path().strip_prefix("/proc").unwrap().to_path_buf())
            .collect();
        stop_tx.send(()).unwrap();
        thread.join().unwrap();
        assert!(scanned.contains(&task), "{task:?} among {scanned:?}");
    }

    #[test]
    fn a_spinning_thread_of_this_process_is_counted() {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let spinning = {
            let stop = stop.clone();
            std::thread::spawn(move || while !stop.load(std::sync::atomic::Ordering::Relaxed) {})
        };
        std::thread::sleep(Duration::from_millis(20));
        let seen = (0..5).map(|_| MachineLoad::sample().expect("/proc is readable on Linux").busy).max().unwrap();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        spinning.join().unwrap();
        assert!(seen >= 1, "a spinning thread is runnable: {seen} seen");
    }
}
