//! What a release ships beside each binary, held to the official tools and to the registry of
//! capabilities:
//!
//! - the MCP Bundle (`.mcpb`, for Claude Desktop): `packaging/mcpb/manifest.json`, staged by
//!   `packaging/mcpb/stage.mjs` beside the binary, validated and packed by the official
//!   `@anthropic-ai/mcpb` exactly as the release workflow does, and the packed bundle unpacked
//!   and started as its manifest says, on the owner's store;
//! - the MCP Registry's entry, `server.json`, valid against the registry's published schema
//!   (vendored in `packaging/mcp-registry/`) with ajv, one bundle per release platform, and
//!   completed for a release by `packaging/mcp-registry/release.mjs`.
//!
//! The manifest's tools are checked against the registry rather than generated at release
//! time: `mcpb pack` reads the file as it is in the repository, the release builds no test
//! binary to generate it from, and a changed tool shows in review as a diff of the manifest.
//! After an intended change: `UPDATE_MANIFEST=1 cargo test --test distribution`.
//!
//! The npm tools are pinned in `e2e/clients/` and installed on first use
//! (`tests/support/official_tools.rs`).

#[path = "support/official_tools.rs"]
mod official_tools;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use discord_manager_core::registry::capabilities;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The workspace's version (`[workspace.package] version`), which every crate takes.
const VERSION: &str = env!("CARGO_PKG_VERSION");
const BINARY: &str = env!("CARGO_BIN_EXE_discord-manager");

fn path(relative: &str) -> PathBuf {
    Path::new(ROOT).join(relative)
}

fn json_file(relative: &str) -> Value {
    let text = std::fs::read_to_string(path(relative))
        .unwrap_or_else(|error| panic!("cannot read {relative}: {error}"));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{relative} is not JSON: {error}"))
}

/// What a command printed, both streams, for a failure's message.
fn said(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn run(mut command: Command) -> Output {
    command
        .output()
        .unwrap_or_else(|error| panic!("{:?} did not start: {error}", command.get_program()))
}

/// The release targets, as the release workflow's matrix lists them.
fn release_targets() -> Vec<String> {
    let workflow = std::fs::read_to_string(path(".github/workflows/release.yml")).unwrap();
    workflow
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- target: "))
        .map(str::to_string)
        .collect()
}

/// The registry's tools as the manifest lists them: each name with its description.
fn registry_tools() -> Value {
    capabilities()
        .iter()
        .map(|capability| json!({"name": capability.name, "description": capability.description}))
        .collect()
}

#[test]
fn the_bundle_manifest_lists_every_registered_tool_with_its_description() {
    let relative = "packaging/mcpb/manifest.json";
    let expected = registry_tools();
    if std::env::var_os("UPDATE_MANIFEST").is_some() {
        let text = std::fs::read_to_string(path(relative)).unwrap();
        let start = text
            .find("  \"tools\": ")
            .expect("the manifest's last key is its tools");
        let tools = serde_json::to_string_pretty(&expected)
            .unwrap()
            .replace('\n', "\n  ");
        let updated = format!("{}  \"tools\": {tools}\n}}\n", &text[..start]);
        std::fs::write(path(relative), updated).unwrap();
    }
    let manifest = json_file(relative);
    assert_eq!(
        manifest["tools"], expected,
        "the bundle's manifest lists the registry's tools as MCP does (after an intended \
         change: UPDATE_MANIFEST=1 cargo test --test distribution)"
    );
}

#[test]
fn the_bundle_and_the_registry_entry_carry_cargos_version() {
    assert_eq!(
        json_file("packaging/mcpb/manifest.json")["version"],
        VERSION
    );
    let server = json_file("server.json");
    assert_eq!(server["version"], VERSION);
    for bundle in server["packages"].as_array().unwrap() {
        let identifier = bundle["identifier"].as_str().unwrap();
        assert!(
            identifier.contains(&format!("/releases/download/v{VERSION}/")),
            "{identifier} is the release of version {VERSION}"
        );
    }
}

#[test]
fn server_json_names_one_bundle_per_release_target_and_fits_the_registrys_schema() {
    let server = json_file("server.json");
    let bundles: Vec<String> = server["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bundle| {
            assert_eq!(bundle["registryType"], "mcpb");
            assert_eq!(bundle["transport"], json!({"type": "stdio"}));
            let identifier = bundle["identifier"].as_str().unwrap();
            identifier
                .strip_prefix(&format!(
                    "https://github.com/OWNER/discord-manager/releases/download/v{VERSION}/"
                ))
                .unwrap_or_else(|| panic!("{identifier} is a bundle of this version's release"))
                .to_string()
        })
        .collect();
    let targets: Vec<String> = release_targets()
        .iter()
        .map(|target| format!("discord-manager-{target}.mcpb"))
        .collect();
    assert_eq!(targets.len(), 4, "{targets:?}");
    assert_eq!(
        bundles, targets,
        "one bundle per release target, as the workflow names them"
    );
    assert_eq!(server["name"], "io.github.OWNER/discord-manager");

    let schema = path("packaging/mcp-registry/server.schema.json");
    assert_eq!(
        server["$schema"],
        json_file("packaging/mcp-registry/server.schema.json")["$id"],
        "server.json names the schema vendored beside it"
    );
    let validated = run(validator(&schema, &path("server.json")));
    assert!(validated.status.success(), "{}", said(&validated));

    // What a release publishes: the repository filled in, each bundle's SHA-256 added.
    let folder = tempfile::tempdir().unwrap();
    let mut sums = Vec::new();
    for (number, bundle) in bundles.iter().enumerate() {
        let bytes = format!("stand-in bundle {number}");
        std::fs::write(folder.path().join(bundle), &bytes).unwrap();
        sums.push(hex(&Sha256::digest(bytes.as_bytes())));
    }
    let released = folder.path().join("server.json");
    let mut release = node(&path("packaging/mcp-registry/release.mjs"));
    release
        .arg("lighthouse-labs/discord-manager")
        .arg(folder.path())
        .arg(&released);
    let completed = run(release);
    assert!(completed.status.success(), "{}", said(&completed));
    let completed: Value = serde_json::from_slice(&std::fs::read(&released).unwrap()).unwrap();
    assert_eq!(
        completed["name"],
        "io.github.lighthouse-labs/discord-manager"
    );
    assert_eq!(
        completed["repository"]["url"],
        "https://github.com/lighthouse-labs/discord-manager"
    );
    let completed_sums: Vec<String> = completed["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bundle| bundle["fileSha256"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(completed_sums, sums);
    let validated = run(validator(&schema, &released));
    assert!(validated.status.success(), "{}", said(&validated));

    // The validator refuses what the registry would: a description past 100 characters.
    let mut too_long = completed.clone();
    too_long["description"] = json!("a".repeat(101));
    let refused_file = folder.path().join("too-long.json");
    std::fs::write(&refused_file, too_long.to_string()).unwrap();
    let refused = run(validator(&schema, &refused_file));
    assert!(!refused.status.success());
    assert_eq!(
        String::from_utf8_lossy(&refused.stdout).trim(),
        "/description: must NOT have more than 100 characters ({\"limit\":100})"
    );
}

/// The binary is staged as a launcher that runs the one cargo built: a debug build is
/// 300 MB, which `mcpb pack` would spend a minute compressing, and what is proven here is the
/// manifest's start, not the zip's.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn a_bundle_packed_by_the_official_mcpb_starts_the_server_on_the_owners_store() {
    use std::os::unix::fs::PermissionsExt;

    let folder = tempfile::tempdir().unwrap();
    let launcher = folder.path().join("discord-manager");
    std::fs::write(&launcher, format!("#!/bin/sh\nexec '{BINARY}' \"$@\"\n")).unwrap();
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    let staged = folder.path().join("staged");
    let mut stage = node(&path("packaging/mcpb/stage.mjs"));
    stage
        .arg("x86_64-unknown-linux-musl")
        .arg(&launcher)
        .arg(&staged);
    let output = run(stage);
    assert!(output.status.success(), "{}", said(&output));

    let mut validate = official_tools::mcpb();
    validate.arg("validate").arg(staged.join("manifest.json"));
    let output = run(validate);
    assert!(output.status.success(), "{}", said(&output));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        "Manifest schema validation passes!"
    );

    let bundle = folder.path().join("discord-manager.mcpb");
    let mut pack = official_tools::mcpb();
    pack.arg("pack").arg(&staged).arg(&bundle);
    let output = run(pack);
    assert!(output.status.success(), "{}", said(&output));
    let unpacked = folder.path().join("unpacked");
    let mut unpack = official_tools::mcpb();
    unpack.arg("unpack").arg(&bundle).arg(&unpacked);
    let output = run(unpack);
    assert!(output.status.success(), "{}", said(&output));

    // The owner's store: the demo, made by the binary's own `seed`.
    let store = folder.path().join("store.sqlite3");
    let seeded = Command::new(BINARY)
        .env_clear()
        .args(["seed", "--db"])
        .arg(&store)
        .output()
        .unwrap();
    assert!(seeded.status.success(), "{}", said(&seeded));

    // Started as a host starts it: the manifest's command, arguments and environment, with
    // the bundle's folder and the owner's answers (the store; no token) put in.
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(unpacked.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["compatibility"]["platforms"], json!(["linux"]));
    let config = &manifest["server"]["mcp_config"];
    let answers = [
        ("${__dirname}", unpacked.display().to_string()),
        ("${user_config.store}", store.display().to_string()),
        ("${user_config.discord_token}", String::new()),
    ];
    let fill = |text: &str| {
        answers
            .iter()
            .fold(text.to_string(), |text, (name, value)| {
                text.replace(name, value)
            })
    };
    let mut server = tokio::process::Command::new(fill(config["command"].as_str().unwrap()));
    server
        .args(
            config["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|arg| fill(arg.as_str().unwrap())),
        )
        .env_clear()
        .env("HOME", folder.path())
        .envs(
            config["env"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(name, value)| (name.clone(), fill(value.as_str().unwrap()))),
        )
        .current_dir(folder.path());
    let client =
        ().serve(TokioChildProcess::new(server).unwrap())
            .await
            .expect("the bundle's server initializes");
    let tools: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect();
    let registered: Vec<String> = capabilities().iter().map(|c| c.name.to_string()).collect();
    assert_eq!(tools, registered);
    let mentions = client
        .call_tool(
            CallToolRequestParams::new("mentions_list").with_arguments(
                json!({"since": "2000-01-01T00:00:00Z"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        )
        .await
        .unwrap();
    let open_mention = discord_manager_core::business::kernel::examples::demo::OPEN_MENTION;
    let listed = mentions.structured_content.expect("a structured answer");
    assert!(
        listed["mentions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|mention| mention["messageId"] == open_mention),
        "the server reads the owner's store: {listed:#}"
    );
    client.cancel().await.unwrap();

    // And the official tool refuses a manifest the hosts could not start.
    let mut broken: Value =
        serde_json::from_slice(&std::fs::read(staged.join("manifest.json")).unwrap()).unwrap();
    broken["server"]["type"] = json!("exe");
    std::fs::write(staged.join("manifest.json"), broken.to_string()).unwrap();
    let mut validate = official_tools::mcpb();
    validate.arg("validate").arg(staged.join("manifest.json"));
    let output = run(validate);
    assert!(!output.status.success(), "{}", said(&output));
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("server.type"),
        "{}",
        said(&output)
    );
}

/// `node SCRIPT` for a script of the repository's own (it imports nothing installed).
fn node(script: &Path) -> Command {
    let mut node = Command::new("node");
    node.arg(script);
    node
}

/// ajv, through `e2e/clients/validate_json.mjs`, holding `document` to `schema`.
fn validator(schema: &Path, document: &Path) -> Command {
    let mut validate = official_tools::node_script("validate_json.mjs");
    validate.arg(schema).arg(document);
    validate
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
