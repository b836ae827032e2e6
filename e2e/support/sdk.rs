//! The official SDK clients, TypeScript's (`@modelcontextprotocol/sdk`) and Python's (`mcp`),
//! driving the real `discord-manager mcp` over stdio from the scripts in `e2e/clients/`, with
//! their pinned packages installed by `official_tools` on first use.
//!
//! A run hands the script a plan (how to start the server, the calls to make, how many pushed
//! channel events to wait for before the first call, after which call to pause until one more
//! arrives, saying `paused` on its output) and reads back what the SDK gave it: the
//! listed tools, each call's result as the wire carried it, and every
//! `notifications/claude/channel` that arrived with how many calls had been answered by then.

use std::process::Stdio;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt};

use super::mcp::BINARY;
use super::official_tools;
use super::record;
use super::store::Store;

/// A safety net, not a measurement: a client that hangs fails the spec instead of the run.
const PATIENCE: Duration = Duration::from_secs(300);

/// Which official SDK drives the server.
#[derive(Debug, Clone, Copy)]
pub enum Sdk {
    TypeScript,
    Python,
}

/// What one SDK client got from one session.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SdkRun {
    /// The SDK's version, as its package says.
    pub sdk: String,
    /// `tools/list`, every page, in order.
    pub tools: Vec<ListedTool>,
    /// One per call, in order: `tool`, `isError`, `content`, `structuredContent`.
    pub results: Vec<Value>,
    pub pushed: Vec<Pushed>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListedTool {
    pub name: String,
    pub description: Option<String>,
}

/// One channel event the client received.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Pushed {
    pub params: Value,
    /// How many of the calls had been answered when it arrived.
    pub calls_answered: usize,
}

/// A client running its plan.
pub struct Session {
    sdk: Sdk,
    child: tokio::process::Child,
    said: tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    /// What the client writes on stderr (and the server, through it), read as it comes.
    stderr: tokio::task::JoinHandle<String>,
    answers: std::path::PathBuf,
    calls: Vec<String>,
}

/// Starts `discord-manager mcp` on `store` from `sdk`'s client, which waits for
/// `pushes_before_calls` channel events, then makes `calls` (each `(tool, arguments)`) in
/// order, pausing after `pause_after` of them until one more event has arrived.
pub fn start(
    sdk: Sdk,
    store: &Store,
    calls: &[(String, Value)],
    pushes_before_calls: usize,
    pause_after: usize,
) -> Session {
    let plan = store.folder().join(format!("{sdk:?}-plan.json"));
    let answers = store.folder().join(format!("{sdk:?}-answers.json"));
    let plan_json = json!({
        "server": server_start(store),
        "calls": calls
            .iter()
            .map(|(tool, arguments)| json!({"tool": tool, "arguments": arguments}))
            .collect::<Vec<_>>(),
        "pushesBeforeCalls": pushes_before_calls,
        "pauseAfterCalls": pause_after,
    });
    std::fs::write(&plan, plan_json.to_string()).expect("the client's plan is written");

    let mut client = match sdk {
        Sdk::TypeScript => official_tools::node_script("typescript_client.mjs"),
        Sdk::Python => official_tools::python_script("python_client.py"),
    };
    // The client passes the server the store's environment (the SDKs add HOME, PATH and the
    // like from their own, which the store's override).
    client
        .env("HOME", store.folder())
        .arg(&plan)
        .arg(&answers)
        .current_dir(store.folder())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = tokio::process::Command::from(client)
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("the {sdk:?} SDK's client did not start: {error}"));
    let stdout = child.stdout.take().expect("the client's stdout is piped");
    let mut stderr = child.stderr.take().expect("the client's stderr is piped");
    let stderr = tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text).await;
        text
    });
    Session {
        sdk,
        child,
        stderr,
        said: tokio::io::BufReader::new(stdout).lines(),
        answers,
        calls: calls.iter().map(|(tool, _)| tool.clone()).collect(),
    }
}

impl Session {
    /// Waits until the client says it paused, waiting for one more event.
    pub async fn paused(&mut self) {
        let sdk = self.sdk;
        let line = tokio::time::timeout(PATIENCE, self.said.next_line())
            .await
            .unwrap_or_else(|_| {
                panic!("the {sdk:?} SDK's client did not pause within {PATIENCE:?}")
            })
            .unwrap_or_else(|error| panic!("the {sdk:?} SDK's client's output: {error}"));
        assert_eq!(
            line.as_deref(),
            Some("paused"),
            "the {sdk:?} SDK's client pauses where its plan says"
        );
    }

    /// Waits for the client to end, and answers what it got.
    pub async fn finish(self) -> SdkRun {
        let Session {
            sdk,
            mut child,
            said: _,
            stderr,
            answers,
            calls,
        } = self;
        let status = tokio::time::timeout(PATIENCE, child.wait())
            .await
            .unwrap_or_else(|_| {
                panic!("the {sdk:?} SDK's client did not finish within {PATIENCE:?}")
            })
            .unwrap_or_else(|error| panic!("the {sdk:?} SDK's client: {error}"));
        let said = stderr.await.unwrap_or_default();
        assert!(
            status.success(),
            "the {sdk:?} SDK's client failed ({status}):\n{said}"
        );
        let text = std::fs::read_to_string(&answers).unwrap_or_else(|error| {
            panic!("the {sdk:?} client wrote no answers ({error}):\n{said}")
        });
        let run: SdkRun = serde_json::from_str(&text).unwrap_or_else(|error| {
            panic!("the {sdk:?} client's answers do not read ({error}): {text}")
        });
        for tool in calls.iter().take(run.results.len()) {
            record::called(tool);
        }
        run
    }
}

/// How a client script starts `discord-manager mcp` on `store`: the command, its arguments,
/// the store's environment and its folder.
fn server_start(store: &Store) -> Value {
    let env: serde_json::Map<String, Value> = store
        .env()
        .into_iter()
        .map(|(name, value)| (name.to_string(), Value::String(value)))
        .collect();
    json!({
        "command": BINARY,
        "args": ["--db", store.path(), "mcp"],
        "env": env,
        "cwd": store.folder(),
    })
}

/// Runs `script` (Python, in `e2e/clients/`) with `plan`, to which the server's start on `store`
/// is added, and answers what it wrote back.
pub async fn run_python(script: &str, store: &Store, mut plan: Value) -> Value {
    let name = script.trim_end_matches(".py");
    let plan_path = store.folder().join(format!("{name}-plan.json"));
    let answers = store.folder().join(format!("{name}-answers.json"));
    plan["server"] = server_start(store);
    std::fs::write(&plan_path, plan.to_string()).expect("the client's plan is written");
    let mut client = official_tools::python_script(script);
    client
        .env("HOME", store.folder())
        .arg(&plan_path)
        .arg(&answers)
        .current_dir(store.folder())
        .stdin(Stdio::null());
    let ran = tokio::time::timeout(
        PATIENCE,
        tokio::process::Command::from(client)
            .kill_on_drop(true)
            .output(),
    )
    .await
    .unwrap_or_else(|_| panic!("{script} did not finish within {PATIENCE:?}"))
    .unwrap_or_else(|error| panic!("{script} did not start: {error}"));
    let said = String::from_utf8_lossy(&ran.stderr);
    assert!(
        ran.status.success(),
        "{script} failed ({}):\n{said}",
        ran.status
    );
    let text = std::fs::read_to_string(&answers)
        .unwrap_or_else(|error| panic!("{script} wrote no answers ({error}):\n{said}"));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{script}'s answers do not read ({error}): {text}"))
}
