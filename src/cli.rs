//! The command line: argument parsing, configuration, logging, exit codes.
