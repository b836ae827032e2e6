//! A store that cannot be written (here its WAL cannot be created) fails `doctor`'s store
//! check with the reason and the fix, exit code 1; the checks that only read go on, and the
//! MCP server still starts on it, since reading works.

use crate::support::Store;
use crate::support::fake_discord::FakeDiscord;

pub async fn spec() {
    let fake = FakeDiscord::start();
    fake.set_application_flags(1 << 19);
    let store = Store::without_owner().sending_to(&fake);
    let mut wal = store.path().as_os_str().to_owned();
    wal.push("-wal");
    // A folder where SQLite must create its WAL: nothing can write the store, root included.
    std::fs::create_dir(&wal).unwrap();

    let assert = store.cli().run_with(&["doctor"], "", &[]).code(1).stderr("");

    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    let line = stdout
        .lines()
        .find(|line| line[6..].starts_with("store:"))
        .unwrap_or_else(|| panic!("no store line: {stdout}"));
    assert_eq!(
        line,
        format!(
            "FAIL  store: the store cannot be written: The store at {} cannot be written \
             (unable to open database file): check the file's and its folder's permissions. \
             Fix: free some disk space, or give this user write access to the store, its -wal \
             and -shm files and their folder (ingest stops with exit 8 until then)",
            store.path().display()
        ),
        "{stdout}"
    );
    let tools = discord_manager_core::registry::capabilities().len();
    assert!(
        stdout.lines().any(|line| line
            == format!("ok    mcp: the server starts on this store and lists its {tools} tools")),
        "{stdout}"
    );
}
