//! The `sidestep` command line (DESIGN §6): plan and draw paths on levels.
//!
//! Exit status: 0 on success, 2 on bad input (the message on stderr names the file and the
//! problem), 1 on an internal failure. No panic reaches the user.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    // A bug must not show the user a Rust panic: report it as an internal failure instead.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("sidestep: internal error: {info}");
    }));
    match std::panic::catch_unwind(|| cli::run(args)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("sidestep: {e}");
            e.exit_code()
        }
        Err(_) => ExitCode::from(1),
    }
}
