//! The cross-cutting gates over the whole surface, one test binary: each file of `tests/` is a
//! module here, so the product is linked into one test binary rather than one per file
//! (docs/performance.md, "Build times"). A test's full name starts with its file's:
//! `cargo test --test gates -- tool_schemas::` runs the tests of `tests/tool_schemas.rs`.
//!
//! A new gate is a file of `tests/` declared below; `Cargo.toml` sets `autotests = false`, so
//! a file not declared here is not built at all, which
//! `test_placement::every_file_of_tests_is_a_module_of_the_gates_binary` refuses.

// Read by the source gates: every `.rs` file under a folder, and what is test code.
#[path = "support/source_tree.rs"]
mod source_tree;

mod answer_budget;
mod benchmark_smoke;
mod cli;
mod completions;
mod discord_api;
mod distribution;
mod docs_tables;
mod field_messages;
mod human_output;
mod layering;
mod links;
mod meaning_eval_set;
mod output_style;
mod parity;
mod prompt_text;
mod scrub_gate;
mod seed_coverage;
mod store_files;
mod store_statements;
mod test_placement;
mod tool_schemas;
mod typed_ids;
