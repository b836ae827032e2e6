//! The tool coverage gate's two registries. Both are empty while every registered tool is
//! called by some spec; the gate (`e2e/gate.rs`) holds them to these rules:
//!
//! - `PENDING` lists tools no spec reaches yet. It only ever shrinks: the gate fails as soon
//!   as a spec calls a pending tool, so the entry leaves in the same change that reaches it.
//!   A new tool lands here in the change that registers it, unless a spec already calls it.
//! - `EXCLUSIONS` lists tools the E2E run need not call, each with a reason citing the unit
//!   test that owns the behaviour end to end, or proof the tool is unreachable from the
//!   product. "No spec yet" is not a reason: that is `PENDING`.
//!
//! An entry naming a tool that is not registered, or a tool in both lists, fails the gate.

/// Tools no spec reaches yet.
pub const PENDING: &[&str] = &[];

/// Tools the E2E run is excused from calling: (tool, reason citing the owning unit test).
pub const EXCLUSIONS: &[(&str, &str)] = &[];
