//! Spans in the host's time trace (`clang -ftime-trace`, `lld --time-trace`,
//! `opt --time-trace`): LLVM's time profiler, one instance per thread.

use std::ffi::CString;

use super::ffi;

/// Worker threads record spans of at least this many microseconds
/// (clang's default `-ftime-trace-granularity`; the host's own value is
/// private to its profiler).
const WORKER_GRANULARITY_US: u32 = 500;

/// Whether this thread records a time trace.
pub fn enabled() -> bool {
    // SAFETY: reads a thread-local pointer.
    unsafe { ffi::mtpc_time_trace_enabled() }
}

/// A named span, from now until it is dropped; nothing if this thread
/// records no trace.
pub struct Span(bool);

impl Span {
    pub fn begin(name: &str, detail: &str) -> Span {
        if !enabled() {
            return Span(false);
        }
        let (name, detail) = (c_string(name), c_string(detail));
        // SAFETY: the profiler copies both strings.
        unsafe { ffi::mtpc_time_trace_begin(name.as_ptr(), detail.as_ptr()) };
        Span(true)
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: ends the span this guard began, on the same thread.
            unsafe { ffi::mtpc_time_trace_end() }
        }
    }
}

/// A worker thread's trace for the length of one job, when the thread
/// that submitted the job records one: created now, handed to the host's
/// profiler (which writes it with its own) when dropped. Spans of the
/// job must be dropped first.
pub struct ThreadTrace(bool);

impl ThreadTrace {
    pub fn start(host_traces: bool) -> ThreadTrace {
        if !host_traces || enabled() {
            return ThreadTrace(false);
        }
        // SAFETY: this thread has no profiler instance (checked above).
        unsafe { ffi::mtpc_time_trace_thread_start(WORKER_GRANULARITY_US) };
        ThreadTrace(true)
    }
}

impl Drop for ThreadTrace {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: the instance this guard created, on the same thread.
            unsafe { ffi::mtpc_time_trace_thread_finish() }
        }
    }
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).expect("no NUL left")
}
