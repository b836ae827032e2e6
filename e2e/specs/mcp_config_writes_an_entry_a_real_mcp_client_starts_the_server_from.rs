//! `discord-manager mcp config project --write` merges this server into a project's
//! `.mcp.json`, keeping the servers already there; the entry names the binary and the store by
//! absolute path and holds no secret; and a real MCP client started from that entry alone, in
//! another directory, reaches this store's tools.

use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

use crate::support::Store;
use crate::support::mcp::BINARY;

pub async fn spec() {
    let store = Store::without_owner();
    let project = store.folder().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let file = project.join(".mcp.json");
    std::fs::write(&file, r#"{"mcpServers": {"github": {"command": "gh-mcp"}}}"#).unwrap();

    let output = std::process::Command::new(BINARY)
        .args(["--db"])
        .arg(store.path())
        .args(["mcp", "config", "project", "--write"])
        .env_clear()
        .envs(store.env())
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!(
            "Wrote the discord-manager server into {} (its other servers are kept); restart the \
             client to load it.\n",
            file.display()
        )
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written["mcpServers"]["github"], json!({"command": "gh-mcp"}));
    let entry = &written["mcpServers"]["discord-manager"];
    let binary = std::fs::canonicalize(BINARY).unwrap();
    assert_eq!(
        entry,
        &json!({
            "command": binary.display().to_string(),
            "args": ["mcp"],
            "env": {"DISCORD_MANAGER_DB": store.path().display().to_string()},
        })
    );

    // A client starts the server from the entry alone: its command, args and env.
    let mut command = tokio::process::Command::new(entry["command"].as_str().unwrap());
    command
        .args(entry["args"].as_array().unwrap().iter().map(|arg| arg.as_str().unwrap()))
        .env_clear()
        .env("HOME", store.folder())
        .current_dir(std::env::temp_dir());
    for (name, value) in entry["env"].as_object().unwrap() {
        command.env(name, value.as_str().unwrap());
    }
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let client = tokio::time::timeout(std::time::Duration::from_secs(60), ().serve(transport))
        .await
        .expect("the server answers initialize")
        .expect("the session initializes");
    let tools = tokio::time::timeout(std::time::Duration::from_secs(60), client.list_all_tools())
        .await
        .expect("the server answers tools/list")
        .unwrap();
    assert_eq!(tools.len(), discord_manager_core::registry::capabilities().len());
    client.cancel().await.unwrap();
}
