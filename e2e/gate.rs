//! The tool coverage gate, judged after the specs ran: every tool the server lists must have
//! been called by some spec, with the exceptions and the rules of `e2e/coverage.rs`, and every
//! prompt it lists rendered by some spec. Coverage comes from the record of real calls and
//! renderings (`support::record`), never from a declaration.
//!
//! Only a full, unfiltered run is judged: a filtered run cannot know what the rest of the
//! suite would have reached, so it only reports.

use std::collections::{BTreeMap, BTreeSet};

use crate::coverage::{EXCLUSIONS, PENDING};
use crate::support::{Store, record};

/// What the gate holds against the run; empty when it passes.
pub fn judge(
    registered: &BTreeSet<String>,
    calls: &BTreeMap<String, BTreeSet<&'static str>>,
    pending: &[&str],
    exclusions: &[(&str, &str)],
) -> Vec<String> {
    let mut problems = Vec::new();
    let called_by = |tool: &str| {
        calls
            .get(tool)
            .map(|specs| specs.iter().copied().collect::<Vec<_>>().join(", "))
    };
    let mut seen_pending = BTreeSet::new();
    for tool in pending {
        if !seen_pending.insert(*tool) {
            problems.push(format!("PENDING lists `{tool}` twice"));
        }
        if !registered.contains(*tool) {
            problems.push(format!(
                "PENDING names `{tool}`, which the server does not list: remove the stale entry"
            ));
        }
        if let Some(specs) = called_by(tool) {
            problems.push(format!(
                "`{tool}` is PENDING but {specs} called it: remove it from PENDING in e2e/coverage.rs"
            ));
        }
    }
    let mut seen_excluded = BTreeSet::new();
    for (tool, reason) in exclusions {
        if !seen_excluded.insert(*tool) {
            problems.push(format!("EXCLUSIONS lists `{tool}` twice"));
        }
        if reason.trim().is_empty() {
            problems.push(format!(
                "the exclusion of `{tool}` gives no reason: cite the unit test that owns it"
            ));
        }
        if !registered.contains(*tool) {
            problems.push(format!(
                "EXCLUSIONS names `{tool}`, which the server does not list: remove the stale entry"
            ));
        }
        if seen_pending.contains(tool) {
            problems.push(format!(
                "`{tool}` is both PENDING and excluded: keep it in one list"
            ));
        }
        if let Some(specs) = called_by(tool) {
            problems.push(format!(
                "`{tool}` is excluded but {specs} called it: remove the exclusion"
            ));
        }
    }
    for tool in registered {
        let parked = seen_pending.contains(tool.as_str()) || seen_excluded.contains(tool.as_str());
        if !parked && !calls.contains_key(tool) {
            problems.push(format!(
                "`{tool}` is registered but no spec called it: write a spec that calls it \
                 (or park it in PENDING in e2e/coverage.rs)"
            ));
        }
    }
    problems
}

/// What the prompt coverage holds against the run: every prompt the server lists must have
/// been rendered by some spec (a prompt has no exclusions: each renders from the demo store);
/// empty when it passes.
pub fn judge_prompts(
    listed: &BTreeSet<String>,
    renders: &BTreeMap<String, BTreeSet<&'static str>>,
) -> Vec<String> {
    listed
        .iter()
        .filter(|prompt| !renders.contains_key(*prompt))
        .map(|prompt| {
            format!(
                "prompt `{prompt}` is listed but no spec had it rendered: write a spec that gets it"
            )
        })
        .collect()
}

/// The tools and the prompts the server lists, from a session with a fresh, empty store.
async fn registered() -> (BTreeSet<String>, BTreeSet<String>) {
    let store = Store::without_owner();
    let mcp = store.mcp().await;
    let tools = mcp
        .tools()
        .await
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    let prompts = mcp
        .prompts()
        .await
        .into_iter()
        .map(|prompt| prompt.name)
        .collect();
    mcp.stop().await;
    (tools, prompts)
}

/// Judges (on a full run) or reports (on a filtered run); false when a full run fails.
pub fn run(full_run: bool) -> bool {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for the coverage gate");
    let (registered, prompts) = runtime.block_on(registered());
    let calls = record::calls();
    let renders = record::renders();
    println!(
        "\ntool coverage gate: {} tools listed, {} called, {} pending, {} excluded",
        registered.len(),
        registered
            .iter()
            .filter(|tool| calls.contains_key(*tool))
            .count(),
        PENDING.len(),
        EXCLUSIONS.len()
    );
    for tool in &registered {
        match calls.get(tool) {
            Some(specs) => println!("  {tool}: called by {} specs", specs.len()),
            None => println!("  {tool}: not called"),
        }
    }
    for prompt in &prompts {
        match renders.get(prompt) {
            Some(specs) => println!("  prompt {prompt}: rendered by {} specs", specs.len()),
            None => println!("  prompt {prompt}: not rendered"),
        }
    }
    let mut problems = judge(&registered, &calls, PENDING, EXCLUSIONS);
    problems.extend(judge_prompts(&prompts, &renders));
    if problems.is_empty() {
        println!(
            "tool coverage gate: ok{}",
            if full_run { "" } else { " (filtered run)" }
        );
        return true;
    }
    if !full_run {
        println!("tool coverage gate: a filtered run is not judged; a full run would report:");
        for problem in &problems {
            println!("  - {problem}");
        }
        return true;
    }
    println!("tool coverage gate: FAILED");
    for problem in &problems {
        println!("  - {problem}");
    }
    false
}
