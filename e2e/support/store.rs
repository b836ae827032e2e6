//! A store per spec: a fresh SQLite file in its own temporary folder, filled by playing
//! scripted feeds through the real ingestion functions in this process
//! (`discord_manager::seed::play_feed`), exactly as the gateway would have recorded them.
//!
//! The store also decides the environment the product runs with: it is passed explicitly to
//! every process a spec starts, over an emptied environment, so no variable of the machine
//! running the suite (a real `DISCORD_TOKEN`, a `.env` file) can reach the product.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use discord_manager::seed::play_feed;
use discord_manager_attachments::Cache;
use discord_manager_ingest::Origin;

use super::cli::Cli;
use super::feed::{Feed, User};
use super::mcp::Mcp;

pub struct Store {
    folder: tempfile::TempDir,
    path: PathBuf,
    owner_id: Option<String>,
    guild_scope: Option<String>,
    /// `DISCORD_TOKEN`: a deployment that may send.
    token: Option<String>,
    /// `DISCORD_API_BASE`: the fake Discord sends go to.
    api_base: Option<String>,
    read_only: bool,
    /// Further settings (`DISCORD_MANAGER_SEND_CHANNELS`, `DISCORD_MANAGER_ALLOW_DMS`, …).
    settings: Vec<(&'static str, String)>,
    /// The configuration so far was moved into the owner's config file, and only what was
    /// set after that is passed in the environment.
    in_config_file: Option<usize>,
}

impl Store {
    /// An empty, migrated store whose owner (`DISCORD_OWNER_ID`) is `owner`.
    pub fn for_owner(owner: &User) -> Store {
        Store::create(Some(owner.id.clone()))
    }

    /// An empty, migrated store with no owner configured.
    pub fn without_owner() -> Store {
        Store::create(None)
    }

    /// `count` stores each holding the same demo store, byte for byte: `seed` made it once,
    /// `backup` copied it (with its kept files, `<store>.attachments/`) once, and each store
    /// here starts from a copy of that backup, so every instant and id the seed stamped is the
    /// same in all of them. No owner is configured: the demo's is learned from the store.
    pub fn copies_of_the_demo(count: usize) -> Vec<Store> {
        let seeded = Store::without_owner();
        seeded.cli().run(&["seed", "--replace"]).success();
        let backup = seeded.folder().join("demo-backup.sqlite3");
        let backup_argument = backup.display().to_string();
        seeded.cli().run(&["backup", &backup_argument]).success();
        (0..count)
            .map(|_| {
                let copy = Store::at_a_free_path(None);
                std::fs::copy(&backup, copy.path()).expect("the demo's backup is copied");
                let files = Cache::folder_of(copy.path());
                let mut folder = std::fs::DirBuilder::new();
                #[cfg(unix)]
                std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
                folder
                    .create(&files)
                    .expect("the copy's attachments folder");
                for file in std::fs::read_dir(Cache::folder_of(&backup)).expect("the kept files") {
                    let file = file.expect("a kept file").path();
                    std::fs::copy(&file, files.join(file.file_name().unwrap()))
                        .expect("a kept file is copied");
                }
                copy
            })
            .collect()
    }

    fn create(owner_id: Option<String>) -> Store {
        let store = Store::at_a_free_path(owner_id);
        discord_manager_store::Store::open(&store.path)
            .expect("the spec's store opens and migrates");
        store
    }

    /// A store's configuration over a path in a fresh folder where nothing is yet.
    fn at_a_free_path(owner_id: Option<String>) -> Store {
        let folder = tempfile::tempdir().expect("a temporary folder for the spec's store");
        let path = folder.path().join("store.sqlite3");
        Store {
            folder,
            path,
            owner_id,
            guild_scope: None,
            token: None,
            api_base: None,
            read_only: false,
            settings: Vec::new(),
            in_config_file: None,
        }
    }

    /// Configures a bot token (`DISCORD_TOKEN`), as a deployment that may send has; with no
    /// API base, a send that passed every check would go to the real Discord, so only specs
    /// of refusals use this.
    pub fn with_token(mut self) -> Store {
        self.token = Some("e2e-token.reaches-no.discord".to_string());
        self
    }

    /// Sends go to `fake` (`DISCORD_API_BASE`), with the token it accepts.
    pub fn sending_to(mut self, fake: &super::fake_discord::FakeDiscord) -> Store {
        self.token = Some(fake.token().to_string());
        self.api_base = Some(fake.api_base().to_string());
        self
    }

    /// Turns sending and scheduling off (`DISCORD_MANAGER_READ_ONLY=1`).
    pub fn read_only(mut self) -> Store {
        self.read_only = true;
        self
    }

    /// Sets one more variable of the configuration contract for every process of the spec.
    pub fn setting(mut self, name: &'static str, value: &str) -> Store {
        self.settings.push((name, value.to_string()));
        self
    }

    /// Leaves a variable set with [`setting`](Store::setting) unset from now on.
    pub fn without_setting(mut self, name: &str) -> Store {
        self.settings.retain(|(set, _)| *set != name);
        self
    }

    /// Moves the whole configuration so far (the store's path, the owner, the token, the API
    /// base, every setting) out of the environment into the owner's config file (mode 0600),
    /// as `setup` would have written it; settings made after this go in the environment.
    #[cfg(unix)]
    pub fn configured_in_its_config_file(mut self) -> Store {
        use std::os::unix::fs::PermissionsExt;
        let text: String = self
            .configuration()
            .into_iter()
            .map(|(name, value)| format!("{name}={value}\n"))
            .collect();
        let file = self.config_file();
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        self.in_config_file = Some(self.settings.len());
        self.owner_id = None;
        self.guild_scope = None;
        self.token = None;
        self.api_base = None;
        self.read_only = false;
        self
    }

    /// Limits the product to these guilds (`DISCORD_GUILD_IDS`).
    pub fn scoped_to(mut self, guild_ids: &[&str]) -> Store {
        self.guild_scope = Some(guild_ids.join(","));
        self
    }

    /// Plays `feed` into the store through the real recorders (and the real capabilities for
    /// its owner actions). Fails the spec if any line fails or is not an event the store keeps.
    pub async fn play(&self, feed: &Feed) {
        let store = Arc::new(
            discord_manager_store::Store::open(&self.path).expect("the spec's store opens"),
        );
        let summary = play_feed(&store, &feed.to_jsonl(), Origin::Gateway)
            .await
            .unwrap_or_else(|error| panic!("the spec's feed did not play: {error}"));
        assert_eq!(
            summary.ignored, feed.expected_ignored,
            "every line of a spec's feed but those it expects ignored is recorded: {summary}"
        );
    }

    /// Plays feed lines written as `seed/` writes them (gateway dispatches `{"t", "d"}`) into
    /// the store through the real recorders, as [`play`](Store::play) does a [`Feed`].
    pub async fn play_lines(&self, jsonl: &str) {
        let store = Arc::new(
            discord_manager_store::Store::open(&self.path).expect("the spec's store opens"),
        );
        let summary = play_feed(&store, jsonl, Origin::Gateway)
            .await
            .unwrap_or_else(|error| panic!("the spec's lines did not play: {error}"));
        assert_eq!(summary.ignored, 0, "every line is recorded: {summary}");
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder processes run in: nothing else is in it, so no `.env` is picked up.
    pub fn folder(&self) -> &Path {
        self.folder.path()
    }

    /// The owner's config file, where `setup` writes and every command reads (under the
    /// spec's HOME).
    pub fn config_file(&self) -> PathBuf {
        self.folder()
            .join(".config")
            .join("discord-manager")
            .join("config.env")
    }

    /// The complete environment of a product process started for this spec.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![
            ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
            ("HOME", self.folder().display().to_string()),
            ("NO_COLOR", "1".to_string()),
        ];
        env.extend(self.configuration());
        env
    }

    /// The product's own variables: the store's path, then whatever the spec configured (only
    /// what it configured after moving the rest into the config file, if it did).
    fn configuration(&self) -> Vec<(&'static str, String)> {
        let mut env = Vec::new();
        if self.in_config_file.is_none() {
            env.push(("DISCORD_MANAGER_DB", self.path.display().to_string()));
        }
        if let Some(owner) = &self.owner_id {
            env.push(("DISCORD_OWNER_ID", owner.clone()));
        }
        if let Some(guilds) = &self.guild_scope {
            env.push(("DISCORD_GUILD_IDS", guilds.clone()));
        }
        if let Some(token) = &self.token {
            env.push(("DISCORD_TOKEN", token.clone()));
        }
        if let Some(base) = &self.api_base {
            env.push(("DISCORD_API_BASE", base.clone()));
        }
        if self.read_only {
            env.push(("DISCORD_MANAGER_READ_ONLY", "1".to_string()));
        }
        let moved = self.in_config_file.unwrap_or(0);
        env.extend(self.settings[moved..].iter().cloned());
        env
    }

    /// Starts `discord-manager mcp` on this store and initializes an MCP session with it.
    pub async fn mcp(&self) -> Mcp {
        Mcp::start(self, super::mcp::Owner::default()).await
    }

    /// Like [`mcp`](Store::mcp), from a client that shows `owner` the server's forms.
    pub async fn mcp_with(&self, owner: &super::mcp::Owner) -> Mcp {
        Mcp::start(self, owner.clone()).await
    }

    /// Runs `discord-manager` commands on this store.
    pub fn cli(&self) -> Cli<'_> {
        Cli::new(self)
    }
}
