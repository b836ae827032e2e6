//! The CLI harness: `discord-manager` commands run with assert_cmd on a spec's store. A
//! command that is a capability is recorded under its MCP tool name for the coverage gate.

use assert_cmd::assert::Assert;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::mcp::{BINARY, decode};
use super::record;
use super::store::Store;

pub struct Cli<'a> {
    store: &'a Store,
}

impl<'a> Cli<'a> {
    pub(super) fn new(store: &'a Store) -> Cli<'a> {
        Cli { store }
    }

    /// Runs `discord-manager --db <store> <args…>`; `args` start with the command's words
    /// (`["bookmarks", "add", id]`).
    pub fn run(&self, args: &[&str]) -> Assert {
        let tool = capability_of(args);
        let assert = assert_cmd::Command::new(BINARY)
            .arg("--db")
            .arg(self.store.path())
            .args(args)
            .env_clear()
            .envs(self.store.env())
            .current_dir(self.store.folder())
            .assert();
        if let Some(tool) = tool {
            record::called(tool);
        }
        assert
    }

    /// Runs a machine command (`setup`, `doctor`) with `stdin` as its standard input and these
    /// variables added to the store's environment.
    pub fn run_with(&self, args: &[&str], stdin: &str, extra: &[(&str, &str)]) -> Assert {
        assert!(
            capability_of(args).is_none(),
            "{args:?} is a capability: use run"
        );
        assert_cmd::Command::new(BINARY)
            .arg("--db")
            .arg(self.store.path())
            .args(args)
            .env_clear()
            .envs(self.store.env())
            .envs(extra.iter().copied())
            .current_dir(self.store.folder())
            .write_stdin(stdin)
            .assert()
    }

    /// Runs a command with `--json`, which must succeed quietly, and returns what it printed.
    pub fn json_value(&self, args: &[&str]) -> Value {
        let mut args = args.to_vec();
        args.push("--json");
        let assert = self.run(&args).success().stderr("");
        let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
        serde_json::from_str(&stdout).unwrap_or_else(|error| {
            panic!(
                "`{}` did not print JSON ({error}): {stdout}",
                args.join(" ")
            )
        })
    }

    /// Runs a command with `--json` and reads its result as `T`.
    pub fn json<T: DeserializeOwned>(&self, args: &[&str]) -> T {
        let value = self.json_value(args);
        decode(&args.join(" "), &value)
    }
}

/// The capability whose command `args` start with, by its MCP tool name.
fn capability_of(args: &[&str]) -> Option<&'static str> {
    discord_manager_core::registry::capabilities()
        .iter()
        .find(|capability| {
            capability.command.len() <= args.len()
                && capability
                    .command
                    .iter()
                    .zip(args)
                    .all(|(word, arg)| word == arg)
        })
        .map(|capability| capability.name)
}
