//! The program: parses the command line and hands it to the surface it asks for, the MCP
//! server for `mcp`, the command line's own runners for everything else; and turns how that
//! ended into the exit code (by error kind, chosen here, not where the error was made).
//!
//! It is the only module that names both surfaces: the command line and the MCP server never
//! call each other (`tests/layering.rs`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::ArgMatches;
use discord_manager_core::business::{self, Source};
use discord_manager_core::config::Config;
use discord_manager_core::registry::Services;
use discord_manager_vocabulary::error::ErrorKind;

use crate::cli::{
    self, Failure, backup, color_enabled, discord_sender, init_logging, open_store,
    page_compression, print_mcp_config, render, run_capability, run_doctor, run_ingest, setup,
    store_path, write_completions, write_stdout,
};

/// Runs the command line and returns the exit code.
pub fn main() -> ExitCode {
    let matches = match cli::command_tree().try_get_matches() {
        Ok(matches) => matches,
        Err(error) => {
            // clap prints help, versions and usage errors itself, with its own exit codes.
            let _ = error.print();
            return ExitCode::from(error.exit_code().clamp(0, 255) as u8);
        }
    };
    match run(&matches) {
        Ok(()) | Err(Failure::ClosedPipe) => ExitCode::SUCCESS,
        Err(Failure::Exit(code)) => ExitCode::from(code),
        Err(Failure::Error(error)) => {
            let prefix = if color_enabled() {
                "\x1b[1;31merror:\x1b[0m"
            } else {
                "error:"
            };
            // An error may quote others' text (a channel's name, Discord's answer); its causes
            // and hints follow it, a line each.
            let explained = error.explained().to_string();
            let message = render::terminal_safe(&explained);
            let _ = writeln!(std::io::stderr(), "{prefix} {message}");
            ExitCode::from(exit_code(error.kind()))
        }
    }
}

/// The exit code of a command that failed with an error of `kind`: what a script or a
/// supervisor branches on (docs/capabilities.md lists them). 2 is clap's own code for a usage
/// error, which an input error is too.
pub fn exit_code(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::Internal => 1,
        ErrorKind::Input => 2,
        ErrorKind::NotFound => 3,
        ErrorKind::Conflict => 4,
        ErrorKind::Denied => 5,
        ErrorKind::Config => 6,
        ErrorKind::Discord => 7,
        ErrorKind::StoreUnwritable => 8,
    }
}

fn run(matches: &ArgMatches) -> Result<(), Failure> {
    let json = matches.get_flag("json");
    let db = matches.get_one::<PathBuf>("db").cloned();
    let (name, sub) = matches.subcommand().expect("clap requires a subcommand");
    match name {
        "completions" => {
            let shell = sub
                .get_one::<String>("shell")
                .expect("clap requires a shell");
            let mut script = Vec::new();
            write_completions(shell, &mut script);
            write_stdout(&script)
        }
        "mcp" if sub.subcommand_name() == Some("config") => {
            let config = Config::from_env()?;
            let options = sub
                .subcommand_matches("config")
                .expect("the subcommand was just named");
            print_mcp_config(options, &store_path(db, &config)?)
        }
        "mcp" => serve_mcp(db),
        "ingest" => run_ingest(db, sub),
        "setup" => {
            init_logging("warn");
            let report = setup::run(sub)?;
            write_stdout(render::terminal_safe(&report).as_bytes())
        }
        "doctor" => run_doctor(db, json),
        "watch" => crate::cli::watch::run(db, json, sub),
        "backup" => {
            init_logging("warn");
            let config = Config::from_env()?;
            let destination = sub
                .get_one::<PathBuf>("path")
                .expect("clap requires a path");
            let report = backup::run(
                &store_path(db, &config)?,
                destination,
                page_compression(&config),
            )?;
            write_stdout(render::terminal_safe(&report).as_bytes())
        }
        "seed" => {
            init_logging("warn");
            let config = Config::from_env()?;
            let path = store_path(db, &config)?;
            let summary = crate::seed::seed_demo(&path, sub.get_flag("replace"))?;
            write_stdout(format!("{summary}\n").as_bytes())
        }
        _ => run_capability(db, json, name, sub),
    }
}

/// `mcp`: every capability as a tool over stdio, with an assistant's owner context.
fn serve_mcp(db: Option<PathBuf>) -> Result<(), Failure> {
    init_logging("warn");
    let config = Config::from_env()?;
    let store = open_store(db, &config)?;
    let context = business::kernel::context::build_owner_context(&config, &store, Source::Mcp)?;
    let store = Arc::new(store);
    crate::mcp::serve(
        Services {
            sender: discord_sender(&config, &store),
            store,
            context,
        },
        config.push,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use discord_manager_vocabulary::error::ErrorKind;

    use super::exit_code;

    /// Every kind has a code of its own, none is success, and the codes are the ones
    /// docs/capabilities.md promises scripts.
    #[test]
    fn every_error_kind_ends_with_its_own_documented_exit_code() {
        let codes = [
            (ErrorKind::Internal, 1),
            (ErrorKind::Input, 2),
            (ErrorKind::NotFound, 3),
            (ErrorKind::Conflict, 4),
            (ErrorKind::Denied, 5),
            (ErrorKind::Config, 6),
            (ErrorKind::Discord, 7),
            (ErrorKind::StoreUnwritable, 8),
        ];
        for (kind, code) in codes {
            assert_eq!(exit_code(kind), code, "{kind:?}");
        }
        let docs = include_str!("../docs/capabilities.md");
        assert!(
            docs.contains("2 input, 3 not found, 4 conflict, 5 denied, 6 configuration,"),
            "docs/capabilities.md lists the exit codes"
        );
    }
}
