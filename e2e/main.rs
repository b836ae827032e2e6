//! End-to-end specs: the real binary driven over stdio by rmcp's client and by assert_cmd.
//!
//! Each spec is one behaviour in one file of `e2e/specs/`, named as a sentence. A spec seeds
//! its own fresh store by playing a scripted feed through the real ingestion functions, then
//! observes the product only through MCP or the CLI (`e2e/support/`). After the specs, the
//! tool coverage gate (`e2e/gate.rs`) judges which tools the run actually called.
//!
//! `cargo test --test e2e` runs everything; `cargo test --test e2e -- <substring>` runs the
//! specs whose name contains it (and the gate only reports).

mod coverage;
mod gate;
mod specs;
mod support;

use std::collections::BTreeSet;
use std::process::ExitCode;

use libtest_mimic::{Arguments, Trial};

use specs::Spec;
use support::record;

fn main() -> ExitCode {
    let arguments = Arguments::from_args();
    let specs = specs::all();
    if let Err(problem) = every_spec_file_is_registered(&specs) {
        eprintln!("{problem}");
        return ExitCode::from(101);
    }
    for (name, _) in specs::KNOWN_BUGS {
        if !specs.iter().any(|spec| spec.name == *name) {
            eprintln!("specs::KNOWN_BUGS names {name}, which is not a spec");
            return ExitCode::from(101);
        }
    }
    let full_run = arguments.filter.is_none() && arguments.skip.is_empty() && !arguments.ignored;
    let trials = specs
        .into_iter()
        .map(|spec| {
            let known_bug = specs::KNOWN_BUGS.iter().any(|(name, _)| *name == spec.name);
            Trial::test(spec.name, move || {
                run(spec);
                Ok(())
            })
            .with_ignored_flag(known_bug)
        })
        .collect();
    let conclusion = libtest_mimic::run(&arguments, trials);
    if arguments.list {
        return conclusion.exit_code();
    }
    for (name, bug) in specs::KNOWN_BUGS {
        println!("known bug, {name} is ignored until it is fixed: {bug}");
    }
    let gate_passed = gate::run(full_run);
    if conclusion.has_failed() || !gate_passed {
        ExitCode::from(101)
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs one spec on this thread, in its own runtime, with its tool calls recorded under it.
fn run(spec: Spec) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for the spec");
    let _running = record::running(spec.name);
    runtime.block_on((spec.run)());
}

/// A spec file that `specs/mod.rs` does not list would silently never run.
fn every_spec_file_is_registered(specs: &[Spec]) -> Result<(), String> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("e2e/specs");
    let files: BTreeSet<String> = std::fs::read_dir(&folder)
        .map_err(|error| format!("cannot read {}: {error}", folder.display()))?
        .filter_map(|entry| entry.ok())
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter_map(|name| name.strip_suffix(".rs").map(str::to_string))
        .filter(|name| name != "mod")
        .collect();
    let registered: BTreeSet<String> = specs.iter().map(|spec| spec.name.to_string()).collect();
    let unregistered: Vec<&String> = files.difference(&registered).collect();
    if unregistered.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "e2e/specs/mod.rs does not list these spec files, so they would never run: {unregistered:?}"
        ))
    }
}
