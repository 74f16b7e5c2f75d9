//! A progress bar on stderr for long work (verify, dump): bytes of Data.db done out of its length.
//!
//! Drawn only for a person watching: stderr is a terminal, stdout is not a pipe, the command does
//! not write JSON (`--json`, `--jsonl`: the command calls [`disable`]) and `--quiet` was not
//! given. Otherwise every call is a no-op, so call sites need no conditions. While a bar is drawn, text written through
//! [`crate::output`] hides it first ([`suspend`]), so rows printed to the same terminal are never
//! torn by it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

static DISABLED: AtomicBool = AtomicBool::new(false);

/// The bar being drawn, if any.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// No bar from now on: `--quiet`, or a command that writes JSON to stdout.
pub fn disable() {
    DISABLED.store(true, Ordering::Relaxed);
}

/// A progress bar, or nothing (see the module doc). Cleared when dropped.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// A bar over `total_bytes`, labelled `message`.
    pub fn bytes(message: impl Into<String>, total_bytes: u64) -> Progress {
        if DISABLED.load(Ordering::Relaxed) || !std::io::stderr().is_terminal() || stdout_is_pipe()
        {
            return Progress(None);
        }
        let style = ProgressStyle::with_template(
            "[{bar:30}] {bytes}/{total_bytes} {binary_bytes_per_sec} eta {eta} {wide_msg}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        let bar = ProgressBar::new(total_bytes)
            .with_style(style)
            .with_message(message.into());
        if let Ok(mut active) = ACTIVE.lock() {
            *active = Some(bar.clone());
        }
        Progress(Some(bar))
    }

    /// `bytes` of the total are done.
    pub fn set_position(&self, bytes: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(bytes);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = self.0.take() {
            bar.finish_and_clear();
            if let Ok(mut active) = ACTIVE.lock() {
                *active = None;
            }
        }
    }
}

/// Runs `write` with the bar (if one is drawn) hidden, then draws it again.
pub fn suspend<R>(write: impl FnOnce() -> R) -> R {
    let bar = ACTIVE.lock().ok().and_then(|active| active.clone());
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

/// stdout is a pipe or a socket (`| head`, `| less`): no bar then.
#[cfg(unix)]
fn stdout_is_pipe() -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return true;
    };
    std::fs::File::from(fd)
        .metadata()
        .map(|m| m.file_type().is_fifo() || m.file_type().is_socket())
        .unwrap_or(true)
}

/// Elsewhere: anything but a terminal counts as a pipe.
#[cfg(not(unix))]
fn stdout_is_pipe() -> bool {
    !std::io::stdout().is_terminal()
}
