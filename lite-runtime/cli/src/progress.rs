//! A one-line progress report on stderr for long work, shown only on a terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Redraws `label: done/total samples (p%)` at most ten times a second, starting only once
/// the work has taken half a second (short runs print nothing), and only when stderr is a
/// terminal (logs and pipes get no carriage returns).
pub struct Progress {
    label: &'static str,
    start: Instant,
    last: Option<Instant>,
    enabled: bool,
}

impl Progress {
    pub fn new(label: &'static str) -> Self {
        Self {
            label,
            start: Instant::now(),
            last: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    pub fn update(&mut self, done: u64, total: Option<u64>) {
        let now = Instant::now();
        let due = match self.last {
            None => now.duration_since(self.start) >= Duration::from_millis(500),
            Some(t) => now.duration_since(t) >= Duration::from_millis(100),
        };
        if !self.enabled || !due {
            return;
        }
        self.last = Some(now);
        let line = match total {
            Some(t) if t > 0 => format!(
                "{}: {done}/{t} samples ({:.0}%)",
                self.label,
                done as f64 * 100.0 / t as f64
            ),
            _ => format!("{}: {done} samples", self.label),
        };
        let mut err = std::io::stderr().lock();
        // Progress is a courtesy: a failed write to the terminal must not fail the work.
        let _ = write!(err, "\r{line}\x1b[K");
        let _ = err.flush();
    }

    /// Clears the line if anything was drawn.
    pub fn finish(&mut self) {
        if self.last.take().is_some() {
            let _ = write!(std::io::stderr().lock(), "\r\x1b[K");
        }
    }
}
