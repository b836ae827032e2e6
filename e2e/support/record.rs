//! What the run actually did: every tool a spec called, through MCP or through the CLI, every
//! prompt a spec had the server render, and which specs did. The coverage gate judges this
//! record, so coverage is measured from real traffic, never asserted.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

static CALLED: Mutex<BTreeMap<String, BTreeSet<&'static str>>> = Mutex::new(BTreeMap::new());
static RENDERED: Mutex<BTreeMap<String, BTreeSet<&'static str>>> = Mutex::new(BTreeMap::new());

thread_local! {
    /// The spec running on this thread (each spec runs on one thread, in its own runtime).
    static CURRENT_SPEC: Cell<&'static str> = const { Cell::new("(outside any spec)") };
}

/// Marks `spec` as the one running on this thread until the returned guard is dropped.
pub fn running(spec: &'static str) -> impl Drop {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            CURRENT_SPEC.with(|current| current.set("(outside any spec)"));
        }
    }
    CURRENT_SPEC.with(|current| current.set(spec));
    Reset
}

/// Records that the running spec called `tool`.
pub fn called(tool: &str) {
    let spec = CURRENT_SPEC.with(Cell::get);
    CALLED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .entry(tool.to_string())
        .or_default()
        .insert(spec);
}

/// Every tool called so far, with the specs that called it.
pub fn calls() -> BTreeMap<String, BTreeSet<&'static str>> {
    CALLED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}

/// Records that the server rendered `prompt` for the running spec.
pub fn rendered(prompt: &str) {
    let spec = CURRENT_SPEC.with(Cell::get);
    RENDERED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .entry(prompt.to_string())
        .or_default()
        .insert(spec);
}

/// Every prompt rendered so far, with the specs that had it rendered.
pub fn renders() -> BTreeMap<String, BTreeSet<&'static str>> {
    RENDERED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
}
