//! stdout and stderr for every command, without std's panics.
//!
//! std's `println!` panics when stdout is a closed pipe ("failed printing to stdout: Broken
//! pipe", e.g. `sstable-inspect info DIR --json | head -c 100`). Here a closed pipe ends the
//! process quietly with status 0, as `head` asked for no more (ripgrep and cargo behave the same);
//! any other write error (a full disk) ends it with a message and status 1, never with a
//! truncated output and status 0.
//!
//! The macros below are declared before the command modules in `main.rs`, so `print!`,
//! `println!`, `eprint!` and `eprintln!` in this crate are these, not std's. Code that writes to
//! stdout through a `Write` uses [`stdout`]. While a progress bar is drawn on the terminal, a
//! write to stdout first hides it ([`crate::progress::suspend`]).

use std::fmt;
use std::io::{self, Write};

/// `print!` through [`print`].
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::output::print(format_args!($($arg)*))
    };
}

/// `println!` through [`print`].
macro_rules! println {
    () => {
        $crate::output::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprint!` that never panics (a failed write to stderr has nowhere to be reported).
macro_rules! eprint {
    ($($arg:tt)*) => {
        $crate::output::eprint(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics.
macro_rules! eprintln {
    () => {
        $crate::output::eprint(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::eprint(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes formatted text to stdout; see the module doc for what a failed write does.
pub fn print(args: fmt::Arguments<'_>) {
    let _ = end_on_error(crate::progress::suspend(|| {
        io::stdout().lock().write_fmt(args)
    }));
}

/// Writes formatted text to stderr, ignoring failure.
pub fn eprint(args: fmt::Arguments<'_>) {
    let _ = crate::progress::suspend(|| io::stderr().lock().write_fmt(args));
}

/// stdout as a `Write` (unbuffered beyond std's line buffer: wrap it in a `BufWriter` for many
/// small writes). A write never returns an error other than `Interrupted`: see the module doc.
pub fn stdout() -> Stdout {
    Stdout(io::stdout())
}

/// See [`stdout`].
pub struct Stdout(io::Stdout);

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        end_on_error(crate::progress::suspend(|| self.0.write(buf)))
    }

    fn flush(&mut self) -> io::Result<()> {
        end_on_error(self.0.flush())
    }
}

/// A successful write (or an interrupted one, which `write_all` retries) is returned; a closed
/// pipe exits 0, any other error exits 1.
fn end_on_error<T>(result: io::Result<T>) -> io::Result<T> {
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => std::process::exit(0),
        Ok(_) => result,
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Err(e),
        Err(e) => {
            let _ = writeln!(io::stderr(), "error: writing to stdout: {e}");
            std::process::exit(1)
        }
    }
}

/// Prints each of `errors` (what a command could not read of an SSTable) as `error: …` on
/// stderr; true if there was any.
pub fn print_errors(errors: Vec<String>) -> bool {
    let any = !errors.is_empty();
    for e in errors {
        eprintln!("error: {e}");
    }
    any
}
