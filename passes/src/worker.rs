//! The process-wide pool of worker threads that compiles partitions.
//!
//! One pool per process, sized by `MTPC_THREADS` (default: the cores this
//! process may use), shared by every module the process compiles at once
//! (lld runs several ThinLTO backends concurrently): their jobs share one
//! queue, so the process never runs more partition jobs than that. Each
//! call may further limit how many of its own jobs run at once. A job that
//! panics fails alone; results come back in job order, whatever order the
//! jobs finished in.

use crossbeam_channel::{unbounded, Sender};
use once_cell::sync::OnceCell;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Stack of a worker thread: LLVM's passes recurse deeply on large functions.
const WORKER_STACK_BYTES: usize = 16 << 20;

pub struct Pool {
    jobs: Sender<Job>,
    size: usize,
}

/// The process's pool, created at first use. Fails (every time) if
/// `MTPC_THREADS` is invalid.
pub fn pool() -> Result<&'static Pool, String> {
    static POOL: OnceCell<Result<Pool, String>> = OnceCell::new();
    POOL.get_or_init(|| crate::options::threads_from_env().map(Pool::new)).as_ref().map_err(Clone::clone)
}

impl Pool {
    fn new(size: usize) -> Pool {
        let (jobs, queue) = unbounded::<Job>();
        for i in 0..size {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("mtpc-worker-{i}"))
                .stack_size(WORKER_STACK_BYTES)
                .spawn(move || {
                    for job in queue.iter() {
                        job();
                    }
                })
                .expect("cannot start an mtpc worker thread");
        }
        Pool { jobs, size }
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// Runs `jobs` on the pool, at most `limit` of them at once, and waits
    /// for all of them. A panic becomes that job's `Err`.
    pub fn run<T, F>(&self, jobs: Vec<F>, limit: usize) -> Vec<Result<T, String>>
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T, String> + Send + 'static,
    {
        let count = jobs.len();
        let (done_tx, done_rx) = unbounded::<(usize, Result<T, String>)>();
        let mut pending = jobs.into_iter().enumerate();
        let submit = |(i, job): (usize, F)| {
            let done = done_tx.clone();
            let wrapped: Job = Box::new(move || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))
                    .unwrap_or_else(|panic| Err(panic_text(&panic)));
                let _ = done.send((i, result));
            });
            self.jobs.send(wrapped).expect("the pool's workers live as long as the process");
        };
        let mut in_flight = 0;
        for job in pending.by_ref().take(limit.max(1)) {
            submit(job);
            in_flight += 1;
        }
        let mut results: Vec<Option<Result<T, String>>> = (0..count).map(|_| None).collect();
        while in_flight > 0 {
            let (i, r) = done_rx.recv().expect("a job reports before its sender is dropped");
            results[i] = Some(r);
            in_flight -= 1;
            if let Some(job) = pending.next() {
                submit(job);
                in_flight += 1;
            }
        }
        results.into_iter().map(|r| r.expect("every job reported")).collect()
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
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    #[test]
    fn results_in_job_order_and_panics_contained() {
        let pool = Pool::new(3);
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
    fn limit_bounds_the_jobs_running_at_once() {
        let pool = Pool::new(4);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let jobs: Vec<_> = (0..12)
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
            .collect();
        pool.run(jobs, 2);
        assert!(peak.load(Ordering::SeqCst) <= 2);
    }
}
