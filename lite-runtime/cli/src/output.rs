//! Standard output for every command: a locked writer whose errors are handled (`?` into a
//! [`Failure`](crate::failure::Failure)), so a closed pipe ends the program quietly instead of
//! the panic `println!` gives.

use std::io::{self, StdoutLock, Write};

/// Where commands print their results. `write!`/`writeln!` on it return `io::Result`; `?`
/// turns an error into a `Failure` (`EPIPE` into [`Failure::ClosedOutput`](
/// crate::failure::Failure::ClosedOutput)).
pub struct Out {
    inner: StdoutLock<'static>,
}

impl Out {
    /// Standard output, locked for the life of the program.
    pub fn stdout() -> Self {
        Self {
            inner: io::stdout().lock(),
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
