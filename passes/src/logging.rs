//! One stderr logger for the whole process, its level set by `MTPC_LOG`
//! (`error`, `warn`, `info`, `debug`; default `warn`).

use log::{Level, LevelFilter, Log, Metadata, Record};
use once_cell::sync::OnceCell;

struct StderrLogger;

impl Log for StderrLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }
    fn log(&self, record: &Record<'_>) {
        if self.enabled(record.metadata()) {
            let level = match record.level() {
                Level::Error => "error",
                Level::Warn => "warning",
                Level::Info => "info",
                Level::Debug | Level::Trace => "debug",
            };
            // One write per line, so lines of concurrent threads never mix.
            let line = format!("mtpc: {level}: {}\n", record.args());
            let _ = std::io::Write::write_all(&mut std::io::stderr().lock(), line.as_bytes());
        }
    }
    fn flush(&self) {}
}

/// Parses a `MTPC_LOG` value.
pub fn parse_level(text: &str) -> Result<LevelFilter, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "" | "warn" | "warning" => Ok(LevelFilter::Warn),
        "error" => Ok(LevelFilter::Error),
        "info" => Ok(LevelFilter::Info),
        "debug" => Ok(LevelFilter::Debug),
        "off" => Ok(LevelFilter::Off),
        other => Err(format!("invalid MTPC_LOG value '{other}': expected error, warn, info, debug or off")),
    }
}

/// Installs the logger once per process (later calls do nothing).
pub fn init() {
    static INSTALLED: OnceCell<()> = OnceCell::new();
    INSTALLED.get_or_init(|| {
        let (level, problem) = match std::env::var("MTPC_LOG") {
            Ok(v) => match parse_level(&v) {
                Ok(l) => (l, None),
                Err(e) => (LevelFilter::Warn, Some(e)),
            },
            Err(_) => (LevelFilter::Warn, None),
        };
        // Another logger in the host process wins; ours then stays silent.
        if log::set_logger(&StderrLogger).is_ok() {
            log::set_max_level(level);
        }
        if let Some(e) = problem {
            log::warn!("{e}; using warn");
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels() {
        assert_eq!(parse_level("debug"), Ok(LevelFilter::Debug));
        assert_eq!(parse_level("INFO"), Ok(LevelFilter::Info));
        assert!(parse_level("verbose").unwrap_err().contains("'verbose'"));
    }
}
