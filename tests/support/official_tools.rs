//! The official MCP tools the tests run against the product: the TypeScript SDK's client, the
//! MCP Bundle CLI (`mcpb`) and a JSON Schema validator (ajv) from npm, and the Python SDK from
//! PyPI, each pinned in `e2e/clients/` (`package.json` with its `package-lock.json`,
//! `requirements.txt`).
//!
//! They are installed on first use, once per pinned list, into the cargo target dir
//! (`target/tmp/official-tools/`): `npm ci` and `pip install --target`, so a fresh clone's
//! `cargo test --locked` needs only `node` (20 or later, with npm) and `python3` (with pip) and
//! the two registries. A folder's name carries the hash of its list, so a changed pin installs
//! afresh; an install is staged in a folder of its own and renamed into place whole, so tests
//! installing at once leave one complete copy. A failed install fails the test saying what to
//! run by hand.
//!
//! Include it with `#[path = "…/tests/support/official_tools.rs"] mod official_tools;`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use sha2::{Digest, Sha256};

/// Where the pinned lists and the client scripts are kept.
pub const CLIENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/e2e/clients");

/// Where installs go: beside cargo's own build products, never in the repository.
const INSTALLS: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/official-tools");

/// The npm packages of `package-lock.json`, installed with `npm ci`; the folder holds
/// `node_modules` and copies of the scripts that import them.
pub fn node_packages() -> PathBuf {
    install(
        "node",
        &["package.json", "package-lock.json"],
        |staging| {
            let mut npm = Command::new("npm");
            npm.args(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])
                .current_dir(staging);
            npm
        },
        &format!("cd {CLIENTS} && npm ci"),
    )
}

/// The Python packages of `requirements.txt`, installed with `pip install --target`: the
/// folder to put on `PYTHONPATH`.
pub fn python_packages() -> PathBuf {
    install(
        "python",
        &["requirements.txt"],
        |staging| {
            let mut pip = Command::new("python3");
            pip.args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--no-warn-conflicts",
                "--target",
            ])
            .arg(staging)
            .arg("-r")
            .arg(staging.join("requirements.txt"));
            pip
        },
        &format!("python3 -m pip install -r {CLIENTS}/requirements.txt"),
    )
}

/// The environment every command here runs in: emptied, but for a PATH to look programs up
/// on (the product's processes get only what a test gives them).
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// `python3` running `script` (a file of `e2e/clients/`) with the installed packages on its
/// path, in an emptied environment: the interpreter itself, not a shim that would need the
/// test's.
pub fn python_script(script: &str) -> Command {
    let packages = python_packages();
    let mut python = Command::new(executable(
        "python3",
        &["-c", "import sys; print(sys.executable)"],
    ));
    python
        .arg(Path::new(CLIENTS).join(script))
        .env_clear()
        .env("PATH", PATH)
        .env("PYTHONPATH", packages);
    python
}

/// The program `command` names, by the path it reports when run with `arguments`.
fn executable(command: &str, arguments: &[&str]) -> PathBuf {
    let output = Command::new(command)
        .args(arguments)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {command} ({error}): the tests need it"));
    assert!(output.status.success(), "{command} {arguments:?} failed");
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// `node` running `script` (a file of `e2e/clients/`) from beside the installed packages, so
/// its imports resolve to them.
pub fn node_script(script: &str) -> Command {
    let packages = node_packages();
    let copy = packages.join(script);
    let staged = packages.join(format!(".{script}.{}", std::process::id()));
    std::fs::copy(Path::new(CLIENTS).join(script), &staged)
        .unwrap_or_else(|error| panic!("cannot copy e2e/clients/{script}: {error}"));
    std::fs::rename(&staged, &copy)
        .unwrap_or_else(|error| panic!("cannot put {script} beside the npm packages: {error}"));
    let mut node = Command::new(executable("node", &["-p", "process.execPath"]));
    node.arg(copy).env_clear().env("PATH", PATH);
    node
}

/// The `mcpb` command of the pinned `@anthropic-ai/mcpb`, in an emptied environment.
pub fn mcpb() -> Command {
    let cli = node_packages().join("node_modules/@anthropic-ai/mcpb/dist/cli/cli.js");
    let mut node = Command::new(executable("node", &["-p", "process.execPath"]));
    node.arg(cli).env_clear().env("PATH", PATH);
    node
}

/// Installs `files` of `e2e/clients/` with `command` into a folder named for their hash,
/// unless it is there already; returns the folder.
fn install(
    kind: &str,
    files: &[&str],
    command: impl Fn(&Path) -> Command,
    by_hand: &str,
) -> PathBuf {
    let mut hash = Sha256::new();
    for file in files {
        let text = std::fs::read(Path::new(CLIENTS).join(file))
            .unwrap_or_else(|error| panic!("cannot read e2e/clients/{file}: {error}"));
        hash.update(&text);
    }
    let digest: String = hash
        .finalize()
        .iter()
        .take(8)
        .map(|byte| format!("{byte:02x}"))
        .collect();
    let folder = Path::new(INSTALLS).join(format!("{kind}-{digest}"));
    if folder.is_dir() {
        return folder;
    }
    std::fs::create_dir_all(INSTALLS)
        .unwrap_or_else(|error| panic!("cannot create {INSTALLS}: {error}"));
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{kind}-"))
        .tempdir_in(INSTALLS)
        .unwrap_or_else(|error| panic!("cannot stage an install in {INSTALLS}: {error}"));
    for file in files {
        std::fs::copy(Path::new(CLIENTS).join(file), staging.path().join(file))
            .unwrap_or_else(|error| panic!("cannot copy e2e/clients/{file}: {error}"));
    }
    let started = Instant::now();
    let mut install = command(staging.path());
    let output = install.output().unwrap_or_else(|error| {
        panic!(
            "cannot run {:?} to install the pinned {kind} packages of e2e/clients ({error}): \
             the tests need node 20 or later with npm, and python3 with pip; then run `{by_hand}`",
            install.get_program()
        )
    });
    if !output.status.success() {
        panic!(
            "installing the pinned {kind} packages of e2e/clients failed ({}); check that the \
             registry is reachable and run `{by_hand}` to see why:\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    eprintln!(
        "installed the pinned {kind} packages of e2e/clients in {:.1} s into {}",
        started.elapsed().as_secs_f64(),
        folder.display()
    );
    let staged = staging.keep();
    if std::fs::rename(&staged, &folder).is_err() {
        // Another test installed the same list meanwhile: keep its copy.
        let _ = std::fs::remove_dir_all(&staged);
        assert!(
            folder.is_dir(),
            "cannot move the install into {}",
            folder.display()
        );
    }
    folder
}
