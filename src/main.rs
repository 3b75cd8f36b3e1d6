//! The `synth` binary: parses the command line and hands it to `synth::cli`.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    match synth::cli::run(synth::cli::Cli::parse()) {
        Ok(outcome) => outcome.exit_code(),
        Err(err) => {
            eprintln!("synth: {}", synth::cli::error_message(&err));
            ExitCode::from(2)
        }
    }
}
