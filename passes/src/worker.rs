//! The process-wide pool of worker threads that compiles partitions.
//!
//! One pool per process, sized by `MTPC_THREADS` (default: the cores this
//! process may use), shared by every module the process compiles at once
//! (lld runs several ThinLTO backends concurrently): their jobs share one
//! queue, so the process never runs more partition jobs than that. Each
//! call may further limit how many of its own jobs run at once, or start
//! them one at a time and run more as it is told cores free
//! (`Limit::Growing`: on a busy machine, see `parallel`). A job that
//! panics fails alone; results come back in job order, whatever order the
//! jobs finished in.
//!
//! Under GNU make's jobserver (`MAKEFLAGS` with `--jobserver-auth`, passed
//! to recipes marked `+`), a job runs only in a slot: the one slot make
//! gave this process (its host thread waits meanwhile), or a token taken
//! from the jobserver and given back when the job ends. So `make -jN`
//! never runs more than N jobs' worth of threads, whatever `MTPC_THREADS` is.
//! Without a jobserver, a job runs holding one of the slots that every
//! mtpc compile of this user on the machine shares (`machine_slots`).
//! Housekeeping (returning free memory to the system, a few milliseconds)
//! runs on a worker without a slot.
//!
//! When the thread that submits jobs records a time trace (`-ftime-trace`),
//! each job records one on its worker thread too, which the host writes
//! with its own.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crossbeam_channel::{unbounded, Sender};
use once_cell::sync::{Lazy, OnceCell};

use crate::ir::time_trace::{self, ThreadTrace};
use crate::machine_slots::{MachineSlot, MachineSlots};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// What a worker takes from the queue: a job, which runs in a slot, or
/// housekeeping, which needs none (it takes milliseconds and competes with
/// no compile for a core).
enum Queued {
    Job(Job),
    Housekeeping(fn()),
}

/// Stack of a worker thread: LLVM's passes recurse deeply on large functions.
pub(crate) const WORKER_STACK_BYTES: usize = 16 << 20;

pub struct Pool {
    size: usize,
    /// The workers' queue. The workers (and a jobserver's helper thread)
    /// start with the first job, so that a process whose modules are all
    /// compiled whole stays single-threaded: glibc's malloc, which the host
    /// calls millions of times, takes a cheaper path in a process of one
    /// thread (sqlite3 at `-O0 -g` executed 0.12 % more instructions).
    jobs: Lazy<Sender<Queued>, Box<dyn FnOnce() -> Sender<Queued> + Send>>,
}

/// Where a pool's slots will come from: decided (and the settings
/// checked) when the pool is made, made when its workers start.
enum SlotSource {
    Jobserver(jobserver::Client),
    Ready(Slots),
}

/// Where a job's permission to run comes from.
enum Slots {
    /// Nothing but the pool's size limits the jobs.
    Unlimited,
    Jobserver(JobserverSlots),
    Machine(MachineSlots),
}

/// Under a jobserver: the slot make gave this process, or tokens that the
/// jobserver helper thread reads for waiting jobs. A job waits for
/// whichever comes first, so it never depends on a token alone (the job
/// holding the process's slot always ends and frees it), and a token that
/// arrives when no job waits goes straight back.
struct JobserverSlots {
    state: Arc<(Mutex<SlotState>, Condvar)>,
    helper: jobserver::HelperThread,
}

struct SlotState {
    implicit_free: bool,
    /// Tokens received for waiting jobs, not yet taken.
    spare: Vec<jobserver::Acquired>,
    waiting: usize,
    /// Tokens asked of the helper thread and not yet received.
    requested: usize,
    /// The jobserver failed: run without slots.
    broken: bool,
}

/// Permission to run one job; given back when dropped.
enum Slot<'a> {
    Unlimited,
    Implicit(&'a JobserverSlots),
    /// Holding the token is the point; dropping it gives it back to make.
    Token(#[allow(dead_code)] jobserver::Acquired),
    /// Likewise: dropping it frees the machine-wide slot.
    Machine(#[allow(dead_code)] MachineSlot),
}

fn lock(m: &Mutex<SlotState>) -> std::sync::MutexGuard<'_, SlotState> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SlotSource {
    /// The jobserver if make passed one, else the machine-wide slots.
    fn from_env() -> Result<SlotSource, String> {
        // Checked now, though used only if the jobserver cannot be.
        crate::options::machine_slots_from_env()?;
        // SAFETY: the descriptors named in MAKEFLAGS are checked to be pipes
        // before use (check_pipe), as make passes them.
        match unsafe { jobserver::Client::from_env_ext(true) }.client {
            Ok(client) => Ok(SlotSource::Jobserver(client)),
            Err(_) => Slots::machine_wide().map(SlotSource::Ready),
        }
    }

    /// The slots, starting the jobserver's helper thread.
    fn into_slots(self) -> Slots {
        match self {
            SlotSource::Ready(slots) => slots,
            SlotSource::Jobserver(client) => match JobserverSlots::new(client) {
                Some(slots) => {
                    log::debug!("using the make jobserver");
                    Slots::Jobserver(slots)
                }
                None => Slots::machine_wide().unwrap_or(Slots::Unlimited),
            },
        }
    }
}

impl Slots {
    /// The machine-wide slots, unless turned off or unusable.
    fn machine_wide() -> Result<Slots, String> {
        Ok(match MachineSlots::from_env()? {
            Some(machine) => {
                log::debug!("no jobserver: sharing {} partition slots with the machine's other compiles", machine.limit());
                Slots::Machine(machine)
            }
            None => Slots::Unlimited,
        })
    }

    fn take(&self) -> Slot<'_> {
        match self {
            Slots::Unlimited => Slot::Unlimited,
            Slots::Jobserver(jobserver) => jobserver.take(),
            Slots::Machine(machine) => match machine.take() {
                Ok(slot) => Slot::Machine(slot),
                Err(e) => {
                    static WARNED: std::sync::Once = std::sync::Once::new();
                    WARNED.call_once(|| log::warn!("cannot take a machine-wide partition slot ({e}); running this job without"));
                    Slot::Unlimited
                }
            },
        }
    }
}

impl JobserverSlots {
    fn new(client: jobserver::Client) -> Option<JobserverSlots> {
        let state = Arc::new((
            Mutex::new(SlotState { implicit_free: true, spare: Vec::new(), waiting: 0, requested: 0, broken: false }),
            Condvar::new(),
        ));
        let helper = {
            let shared = state.clone();
            let helper = client.into_helper_thread(move |token| {
                let (m, cv) = &*shared;
                let mut s = lock(m);
                s.requested = s.requested.saturating_sub(1);
                match token {
                    Ok(t) if s.waiting > s.spare.len() => s.spare.push(t),
                    Ok(unneeded) => drop(unneeded),
                    Err(e) => {
                        log::warn!("the make jobserver failed ({e}); running without it");
                        s.broken = true;
                    }
                }
                cv.notify_all();
            });
            helper.map_err(|e| log::warn!("cannot use the make jobserver ({e})")).ok()?
        };
        Some(JobserverSlots { state, helper })
    }

    fn take(&self) -> Slot<'_> {
        let helper = &self.helper;
        let (m, cv) = &*self.state;
        let mut s = lock(m);
        s.waiting += 1;
        let slot = loop {
            if s.implicit_free {
                s.implicit_free = false;
                break Slot::Implicit(self);
            }
            if let Some(token) = s.spare.pop() {
                break Slot::Token(token);
            }
            if s.broken {
                break Slot::Unlimited;
            }
            while s.requested + s.spare.len() < s.waiting {
                helper.request_token();
                s.requested += 1;
            }
            s = cv.wait(s).unwrap_or_else(|poisoned| poisoned.into_inner());
        };
        s.waiting -= 1;
        slot
    }

    fn free_implicit(&self) {
        let (m, cv) = &*self.state;
        lock(m).implicit_free = true;
        cv.notify_all();
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Slot::Implicit(slots) = self {
            slots.free_implicit();
        }
    }
}

/// Starts `size` workers that run jobs from the queue returned, each
/// holding a slot. If the system lets fewer threads start, they run on
/// those; if none, this panics (the pass catches it and leaves the module
/// whole; the pool stays unusable).
fn start_workers(size: usize, slots: Slots) -> Sender<Queued> {
    let slots = Arc::new(slots);
    let (jobs, queue) = unbounded::<Queued>();
    let mut started = 0;
    for i in 0..size {
        let (queue, slots) = (queue.clone(), slots.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("mtpc-worker-{i}"))
            .stack_size(WORKER_STACK_BYTES)
            .spawn(move || {
                for queued in queue.iter() {
                    let job = match queued {
                        Queued::Job(job) => job,
                        Queued::Housekeeping(task) => {
                            if let Err(panic) = std::panic::catch_unwind(task) {
                                log::warn!("housekeeping failed: {}", panic_text(&panic));
                            }
                            continue;
                        }
                    };
                    // A panic here, outside the job's own catch, would end
                    // this worker with the job unrun and its caller waiting.
                    let _slot = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| slots.take())).unwrap_or_else(|panic| {
                        log::warn!("cannot take a partition slot ({}); running this job without", panic_text(&panic));
                        Slot::Unlimited
                    });
                    job();
                }
            });
        match spawned {
            Ok(_) => started += 1,
            Err(e) if started > 0 => {
                log::warn!("started {started} of {size} worker threads ({e}); running on those");
                break;
            }
            Err(e) => panic!("cannot start an mtpc worker thread: {e}"),
        }
    }
    log::debug!("started {started} worker threads");
    jobs
}

/// How many modules are between the start of their partitions and their
/// end (`Pool::return_memory_around_partitions`), in this process.
static MODULES_PARTITIONED: AtomicUsize = AtomicUsize::new(0);

/// Returns the free pages of every heap arena to the system (glibc's
/// `malloc_trim`; nothing elsewhere, nor under another allocator).
///
/// glibc gives each thread that allocates an arena (up to 8 per core) and
/// keeps what is freed in an arena for later allocations from it. So what
/// the host's front end frees in the main arena before mtpc's pass runs is
/// never reused by the partitions, whose workers allocate from theirs, and
/// what the partitions free stays in the workers' arenas while the host,
/// on its thread, assembles what they wrote: both are resident memory that
/// a compile on one thread would have reused. It costs a walk of the
/// arenas' free lists (1 to 15 ms), each arena locked in turn, and the
/// pages are faulted in again when reused.
pub fn return_free_memory() {
    let t = std::time::Instant::now();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes each arena's lock; it may run beside any
    // allocation on any thread.
    unsafe {
        libc::malloc_trim(0);
    }
    log::debug!("free memory returned to the system in {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
}

/// While alive, a module's partitions are running or being joined; when
/// it is dropped and no other module is, the free memory is returned on a
/// worker (`Pool::return_memory_around_partitions`).
pub struct MemoryReturn<'p> {
    pool: &'p Pool,
}

impl Drop for MemoryReturn<'_> {
    fn drop(&mut self) {
        if MODULES_PARTITIONED.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.pool.housekeep(return_free_memory);
        }
    }
}

/// The process's pool, created at first use (its threads start with its
/// first job). Fails (every time) if `MTPC_THREADS` or
/// `MTPC_MACHINE_SLOTS` is invalid.
pub fn pool() -> Result<&'static Pool, String> {
    static POOL: OnceCell<Result<Pool, String>> = OnceCell::new();
    POOL.get_or_init(|| {
        let size = crate::options::threads_from_env()?;
        Ok(Pool::new(size, SlotSource::from_env()?))
    })
    .as_ref()
    .map_err(Clone::clone)
}

impl Pool {
    fn new(size: usize, slot_source: SlotSource) -> Pool {
        Pool { size, jobs: Lazy::new(Box::new(move || start_workers(size, slot_source.into_slots()))) }
    }

    #[cfg(test)]
    fn with_slots(size: usize, slots: Slots) -> Pool {
        Pool::new(size, SlotSource::Ready(slots))
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Returns the heap's free memory to the system (`return_free_memory`)
    /// around a module's partitions: now, on this thread, before they
    /// start, and when what this returns is dropped (once the module is
    /// joined, before the host assembles it), on a worker while this thread
    /// goes on; each only if no other module of the process is between the
    /// two (lld compiles several ThinLTO backends at once, and each reuses
    /// what it frees).
    pub fn return_memory_around_partitions(&self) -> MemoryReturn<'_> {
        if MODULES_PARTITIONED.fetch_add(1, Ordering::SeqCst) == 0 {
            return_free_memory();
        }
        MemoryReturn { pool: self }
    }

    /// Runs `task` on a worker without a slot, while this thread goes on
    /// (on this thread if the workers have not started: they start with
    /// the first job). A panic in it is contained.
    fn housekeep(&self, task: fn()) {
        if Lazy::get(&self.jobs).is_none() {
            task();
            return;
        }
        self.jobs.send(Queued::Housekeeping(task)).expect("the pool's workers live as long as the process");
    }

    /// Runs `jobs` on the pool, at most `limit` of them at once, and waits
    /// for all of them. A panic becomes that job's `Err`.
    pub fn run<T, F>(&self, jobs: Vec<F>, limit: usize) -> Vec<Result<T, String>>
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T, String> + Send + 'static,
    {
        let mut results: Vec<Option<Result<T, String>>> = (0..jobs.len()).map(|_| None).collect();
        self.run_dynamic(jobs, Limit::Fixed(limit), |i, r| {
            results[i] = Some(r);
            Vec::new()
        });
        results.into_iter().map(|r| r.expect("every job reported")).collect()
    }

    /// Runs `jobs`, and the jobs that finishing them releases, on the pool,
    /// at most `limit` at once; returns when none is left. Jobs are
    /// numbered in the order they are given (`jobs` first, then each batch
    /// `done` returns). `done` is called on this thread with each job's
    /// number and result (a panic becomes `Err`), in the order they finish,
    /// and returns the jobs that may start now; those start before any job
    /// still waiting, so that work begun is finished first.
    pub fn run_dynamic<T, F>(&self, jobs: Vec<F>, limit: Limit<'_>, mut done: impl FnMut(usize, Result<T, String>) -> Vec<F>)
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T, String> + Send + 'static,
    {
        let traced = time_trace::enabled();
        let (mut limit, mut growth) = match limit {
            Limit::Fixed(n) => (n.max(1), None),
            Limit::Growing { max, poll, more } => (1, Some((max.max(1), poll, more))),
        };
        // The tasks running this call's jobs, for `more` to leave out.
        let running: Arc<Mutex<Vec<PathBuf>>> = Arc::default();
        let tracked = growth.is_some();
        let (done_tx, done_rx) = unbounded::<(usize, Result<T, String>)>();
        let submit = |(i, job): (usize, F)| {
            let done = done_tx.clone();
            let running = tracked.then(|| running.clone());
            let wrapped: Job = Box::new(move || {
                let _trace = ThreadTrace::start(traced);
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    let _task = running.as_deref().and_then(RunningTask::enter);
                    job()
                }))
                .unwrap_or_else(|panic| Err(panic_text(&panic)));
                let _ = done.send((i, result));
            });
            self.jobs.send(Queued::Job(wrapped)).expect("the pool's workers live as long as the process");
        };
        let mut waiting: std::collections::VecDeque<(usize, F)> = jobs.into_iter().enumerate().collect();
        let mut numbered = waiting.len();
        let mut in_flight = 0;
        loop {
            while in_flight < limit {
                let Some(job) = waiting.pop_front() else { break };
                submit(job);
                in_flight += 1;
            }
            if in_flight == 0 {
                return;
            }
            let (i, r) = match &mut growth {
                // Jobs wait that one more lane would start: asked again and again.
                Some((max, poll, more)) if limit < *max && !waiting.is_empty() => match done_rx.recv_timeout(*poll) {
                    Ok(finished) => finished,
                    Err(_) => {
                        let tasks = running.lock().unwrap_or_else(|p| p.into_inner()).clone();
                        if more(&tasks, in_flight) {
                            limit += 1;
                        }
                        continue;
                    }
                },
                _ => done_rx.recv().expect("a job reports before its sender is dropped"),
            };
            in_flight -= 1;
            let released = done(i, r);
            let count = released.len();
            for (k, job) in released.into_iter().enumerate().rev() {
                waiting.push_front((numbered + k, job));
            }
            numbered += count;
        }
    }
}

/// How many of one call's jobs may run at once.
pub enum Limit<'a> {
    Fixed(usize),
    /// One at first, and one more (up to `max`) each time `more` says so:
    /// asked after each `poll` without a job ending while jobs wait, with
    /// the tasks running the call's jobs (`PID/task/TID`) and the number of
    /// its jobs in flight (submitted and not ended: some may still wait for
    /// a worker or a slot, asleep).
    Growing { max: usize, poll: std::time::Duration, more: &'a mut dyn FnMut(&[PathBuf], usize) -> bool },
}

/// A task listed as running one of a call's jobs while this lives.
struct RunningTask<'a> {
    list: &'a Mutex<Vec<PathBuf>>,
    task: PathBuf,
}

impl<'a> RunningTask<'a> {
    fn enter(list: &'a Mutex<Vec<PathBuf>>) -> Option<RunningTask<'a>> {
        let task = std::fs::read_link("/proc/thread-self").ok()?;
        list.lock().unwrap_or_else(|p| p.into_inner()).push(task.clone());
        Some(RunningTask { list, task })
    }
}

impl Drop for RunningTask<'_> {
    fn drop(&mut self) {
        let mut list = self.list.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = list.iter().position(|t| *t == self.task) {
            list.swap_remove(at);
        }
    }
}

/// The message of a caught panic.
pub fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("panic: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_jobserver() -> Slots {
        Slots::Unlimited
    }

    /// `n` short jobs that count how many of them run at once (`running`)
    /// and record the most (`peak`).
    fn counted_jobs(n: usize, running: &Arc<AtomicUsize>, peak: &Arc<AtomicUsize>) -> Vec<impl FnOnce() -> Result<(), String> + Send + 'static> {
        (0..n)
            .map(|_| {
                let (running, peak) = (running.clone(), peak.clone());
                move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(5));
                    running.fetch_sub(1, Ordering::SeqCst);
                    Ok(())
                }
            })
            .collect()
    }

    /// Runs 12 short jobs on `pool`, at most `limit` of them submitted at
    /// once, and returns how many ran at the same time at most.
    fn peak_concurrency(pool: &Pool, limit: usize) -> usize {
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        pool.run(counted_jobs(12, &running, &peak), limit);
        peak.load(Ordering::SeqCst)
    }

    #[test]
    fn jobserver_tokens_bound_the_jobs_running_at_once() {
        // A jobserver with one token: the process's slot plus that token,
        // so at most 2 jobs at once on a pool of 4.
        // The jobserver's helper thread starts with the workers, at the
        // first job.
        let client = jobserver::Client::new(1).unwrap();
        let pool = Pool::new(4, SlotSource::Jobserver(client));
        assert!(Lazy::get(&pool.jobs).is_none(), "no thread before the first job");
        assert_eq!(peak_concurrency(&pool, 12), 2);
        assert!(Lazy::get(&pool.jobs).is_some());
    }

    #[test]
    fn machine_slots_bound_the_jobs_of_several_pools_at_once() {
        // Two pools of 3 threads (two compiles' views) sharing 2 slots.
        let dir = std::env::temp_dir().join(format!("mtpc-worker-slots-{}", std::process::id()));
        let pools: Vec<Pool> = (0..2)
            .map(|_| Pool::with_slots(3, Slots::Machine(MachineSlots::at(dir.clone(), 2).unwrap())))
            .collect();
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for pool in &pools {
                let jobs = counted_jobs(9, &running, &peak);
                scope.spawn(move || pool.run(jobs, 3));
            }
        });
        assert_eq!(peak.load(Ordering::SeqCst), 2, "two jobs at once across both pools, never more");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn results_in_job_order_and_panics_contained() {
        let pool = Pool::with_slots(3, no_jobserver());
        let jobs: Vec<_> = (0..20)
            .map(|i| {
                move || {
                    if i == 7 {
                        panic!("job seven");
                    }
                    Ok(i * 2)
                }
            })
            .collect();
        let r = pool.run(jobs, 20);
        assert_eq!(r.len(), 20);
        assert_eq!(r[3], Ok(6));
        assert!(r[7].as_ref().unwrap_err().contains("job seven"));
    }

    #[test]
    fn released_jobs_run_before_waiting_ones_and_are_numbered_after() {
        // One thread: job 0 releases job 3, which must run before jobs 1 and 2.
        let pool = Pool::with_slots(1, no_jobserver());
        let ran = Arc::new(Mutex::new(Vec::new()));
        let job = |tag: usize| {
            let ran = ran.clone();
            Box::new(move || {
                ran.lock().unwrap().push(tag);
                Ok(tag)
            }) as Box<dyn FnOnce() -> Result<usize, String> + Send>
        };
        let mut finished = Vec::new();
        pool.run_dynamic(vec![job(0), job(1), job(2)], Limit::Fixed(1), |i, r| {
            finished.push((i, r.unwrap()));
            if i == 0 {
                vec![job(30)]
            } else {
                Vec::new()
            }
        });
        assert_eq!(*ran.lock().unwrap(), vec![0, 30, 1, 2]);
        assert_eq!(finished, vec![(0, 0), (3, 30), (1, 1), (2, 2)]);
    }

    /// Runs 4 jobs of 500 ms under a growing limit of at most 2, polled
    /// every 100 ms, whose `more` answers from `answers` (then no); returns
    /// the most that ran at once and what `more` was asked with (tasks
    /// listed, jobs in flight).
    fn growing(answers: &[bool]) -> (usize, Vec<(usize, usize)>) {
        let pool = Pool::with_slots(3, no_jobserver());
        let (running, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let jobs: Vec<_> = (0..4)
            .map(|_| {
                let (running, peak) = (running.clone(), peak.clone());
                move || {
                    peak.fetch_max(running.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(500));
                    running.fetch_sub(1, Ordering::SeqCst);
                    Ok(())
                }
            })
            .collect();
        let (mut asked, mut answers) = (Vec::new(), answers.iter().copied());
        let mut more = |tasks: &[PathBuf], started: usize| {
            asked.push((tasks.len(), started));
            answers.next().unwrap_or(false)
        };
        let poll = std::time::Duration::from_millis(100);
        pool.run_dynamic(jobs, Limit::Growing { max: 2, poll, more: &mut more }, |_, r: Result<(), String>| {
            r.unwrap();
            Vec::new()
        });
        (peak.load(Ordering::SeqCst), asked)
    }

    #[test]
    fn a_growing_limit_runs_one_job_until_told_a_lane_freed() {
        let (peak, asked) = growing(&[]);
        assert_eq!(peak, 1, "never told: one job at a time");
        assert!(!asked.is_empty(), "asked while jobs waited");
        assert!(asked.iter().all(|&(tasks, in_flight)| tasks <= 1 && in_flight == 1), "one job at a time: {asked:?}");
        assert!(asked.iter().any(|&(tasks, _)| tasks == 1), "the running job's task listed: {asked:?}");
        let (peak, asked) = growing(&[false, true]);
        assert_eq!(peak, 2, "a second job once told");
        assert_eq!(asked.len(), 2, "not asked once at the most: {asked:?}");
    }

    #[test]
    fn limit_bounds_the_jobs_running_at_once() {
        let pool = Pool::with_slots(4, no_jobserver());
        assert!(peak_concurrency(&pool, 2) <= 2);
    }

    static HOUSEKEPT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    static HOLDING_THE_SLOT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

    fn note_housekeeping() {
        HOUSEKEPT.store(true, Ordering::SeqCst);
    }

    /// Waits up to 10 s for `flag`; whether it was set.
    fn wait_for(flag: &std::sync::atomic::AtomicBool) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !flag.load(Ordering::SeqCst) {
            if std::time::Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        true
    }

    #[test]
    fn housekeeping_runs_while_a_job_holds_the_only_slot() {
        // A jobserver without tokens: one job at a time, in the process's slot.
        let pool = Pool::new(2, SlotSource::Jobserver(jobserver::Client::new(0).unwrap()));
        std::thread::scope(|scope| {
            let holder = scope.spawn(|| {
                pool.run(
                    vec![|| {
                        HOLDING_THE_SLOT.store(true, Ordering::SeqCst);
                        Ok(wait_for(&HOUSEKEPT))
                    }],
                    1,
                )
            });
            assert!(wait_for(&HOLDING_THE_SLOT), "the job never started");
            pool.housekeep(note_housekeeping);
            let results = holder.join().unwrap();
            assert_eq!(results, vec![Ok(true)], "the housekeeping waited for the job's slot");
        });
    }

    /// How many of the pages of `blocks` are resident.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn resident_pages(blocks: &[(usize, usize)]) -> (usize, usize) {
        // SAFETY: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize;
        let (mut resident, mut total) = (0, 0);
        for &(start, len) in blocks {
            // Whole pages inside the block, past the allocator's header.
            let first = (start + page) / page * page;
            let end = (start + len) / page * page;
            if end <= first {
                continue;
            }
            let mut state = vec![0u8; (end - first) / page];
            // SAFETY: mincore only reads the page tables of the range, which
            // lies in this process's heap.
            let rc = unsafe { libc::mincore(first as *mut libc::c_void, end - first, state.as_mut_ptr()) };
            // ENOMEM: unmapped (a block the allocator had mapped on its own).
            if rc == 0 {
                resident += state.iter().filter(|&&s| s & 1 == 1).count();
            }
            total += state.len();
        }
        (resident, total)
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn freed_memory_inside_an_arena_is_returned_to_the_system() {
        // 64 MiB in blocks below glibc's mmap threshold (each holding whole
        // pages of up to 16 KiB), written to, then
        // freed with a block still in use after them: the arena keeps the
        // freed pages (only its top is trimmed on free) until returned.
        let mut blocks: Vec<Vec<u8>> = (0..1025).map(|_| vec![1u8; 64 << 10]).collect();
        let pin = blocks.pop().expect("allocated last, above the others");
        let ranges: Vec<(usize, usize)> = blocks.iter().map(|b| (b.as_ptr() as usize, b.len())).collect();
        let (before, total) = resident_pages(&ranges);
        assert!(total >= 1024 && before == total, "{before} of {total} pages resident once written");
        blocks.clear();
        let (kept, _) = resident_pages(&ranges);
        assert!(kept > total / 2, "freeing alone returned {} of {total} pages", total - kept);
        return_free_memory();
        let (after, _) = resident_pages(&ranges);
        // Other tests of this process may reuse some of those blocks meanwhile.
        assert!(after < total / 4, "{after} of {total} pages still resident after returning free memory");
        drop(pin);
    }
}
