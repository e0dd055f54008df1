//! Runs independent jobs on a few threads and returns their results in
//! job order, whatever order they finished in.

use crossbeam_channel::unbounded;

/// Runs `job(0..count)` on up to `threads` scoped threads. A job that
/// panics yields `Err` for that job only (as text); the others still run.
pub fn run_indexed<T, E, F>(count: usize, threads: usize, job: F) -> Vec<Result<T, E>>
where
    T: Send,
    E: Send + From<String>,
    F: Fn(usize) -> Result<T, E> + Sync,
{
    let (work_tx, work_rx) = unbounded::<usize>();
    for i in 0..count {
        work_tx.send(i).expect("receiver alive");
    }
    drop(work_tx);
    let (done_tx, done_rx) = unbounded::<(usize, Result<T, E>)>();
    let threads = threads.clamp(1, count.max(1));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (work_rx, done_tx, job) = (work_rx.clone(), done_tx.clone(), &job);
            scope.spawn(move || {
                for i in work_rx.iter() {
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(i)))
                        .unwrap_or_else(|panic| Err(E::from(panic_text(&panic))));
                    done_tx.send((i, result)).expect("collector alive");
                }
            });
        }
    });
    drop(done_tx);
    let mut results: Vec<Option<Result<T, E>>> = (0..count).map(|_| None).collect();
    for (i, r) in done_rx.iter() {
        results[i] = Some(r);
    }
    results.into_iter().map(|r| r.expect("every job reported")).collect()
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

    #[test]
    fn results_in_job_order_and_panics_contained() {
        let r: Vec<Result<usize, String>> = run_indexed(20, 4, |i| {
            if i == 7 {
                panic!("job seven");
            }
            Ok(i * 2)
        });
        assert_eq!(r.len(), 20);
        assert_eq!(r[3], Ok(6));
        assert!(r[7].as_ref().unwrap_err().contains("job seven"));
    }
}
