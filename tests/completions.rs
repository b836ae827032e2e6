//! The completion scripts kept in `completions/` are what the binary generates now.
//! To refresh them after a change to the command tree:
//! `UPDATE_COMPLETIONS=1 cargo test --test gates -- completions::`.

use std::path::Path;

use assert_cmd::Command;

#[test]
fn the_completion_scripts_in_the_repository_are_current() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    for (shell, file) in [
        ("bash", "discord-manager.bash"),
        ("zsh", "_discord-manager"),
        ("fish", "discord-manager.fish"),
    ] {
        let output = Command::cargo_bin("discord-manager")
            .unwrap()
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(output.status.success(), "completions {shell} failed");
        let generated = String::from_utf8(output.stdout).unwrap();
        assert!(
            generated.contains("catch-up") && generated.contains("bookmarks"),
            "{shell} script lacks commands"
        );
        let path = folder.join(file);
        if std::env::var_os("UPDATE_COMPLETIONS").is_some() {
            std::fs::write(&path, &generated).unwrap();
        }
        let kept = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            kept == generated,
            "completions/{file} is stale: run UPDATE_COMPLETIONS=1 cargo test --test gates -- completions::"
        );
    }
}
