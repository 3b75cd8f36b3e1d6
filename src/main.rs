//! The `synth` binary: parses the command line and hands it to `synth::cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    match synth::cli::run(synth::cli::Cli::parse()) {
        Ok(outcome) => outcome.exit_code(),
        // The reader of the output went away (`synth stats | head`): what it
        // wanted was written, and there is no one left to tell.
        Err(err) if synth::cli::caused_by_io(&err, std::io::ErrorKind::BrokenPipe) => {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("synth: {}", synth::cli::error_message(&err));
            ExitCode::from(2)
        }
    }
}
