//! The `discord-manager` binary: everything lives in the library; this only hands over.

fn main() -> std::process::ExitCode {
    discord_manager::program::main()
}
