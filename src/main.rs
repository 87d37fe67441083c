//! The `sidestep` command line (DESIGN §6): plan and draw paths on levels.
//!
//! Exit status: 0 on success, 2 on bad input (the message on stderr names the file and the
//! problem), 1 on an internal failure. No panic reaches the user.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// The message of the last panic, kept by the panic hook for `main` to report if the panic
/// reaches it. A panic the library catches itself (the triangulator's, which becomes a level
/// error) is not shown.
static LAST_PANIC: std::sync::Mutex<String> = std::sync::Mutex::new(String::new());

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    // A bug must not show the user a Rust panic: report it as an internal failure instead.
    std::panic::set_hook(Box::new(|info| {
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = info.to_string();
        }
    }));
    match std::panic::catch_unwind(|| cli::run(args)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("sidestep: {e}");
            e.exit_code()
        }
        Err(_) => {
            let message = LAST_PANIC.lock().map(|m| m.clone()).unwrap_or_default();
            eprintln!("sidestep: internal error: {message}");
            ExitCode::from(1)
        }
    }
}
