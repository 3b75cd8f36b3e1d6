//! The `synth` binary: parses the command line and hands it to `synth::cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    match synth::cli::run(synth::cli::Cli::parse()) {
        Ok(outcome) => outcome.exit_code(),
        // The reader of the output went away (`synth stats | head`): what it
        // wanted was written, and there is no one left to tell.
        Err(err) if broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("synth: {}", synth::cli::error_message(&err));
            ExitCode::from(2)
        }
    }
}

fn broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
