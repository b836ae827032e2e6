//! Unit tests of `config`, kept beside it so the production file reads on its own.

use discord_manager_vocabulary::error::ErrorKind;

use super::*;

const TOKEN: &str = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhIjKl.secret_token-part-3";

fn config(pairs: &[(&str, &str)]) -> Result<Config> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Config::from_lookup(|name| map.get(name).cloned())
}

#[test]
fn reads_every_variable_of_the_contract() {
    let config = config(&[
        ("DISCORD_TOKEN", TOKEN),
        ("DISCORD_OWNER_ID", "123456789012345678"),
        ("DISCORD_GUILD_IDS", "111, 222"),
        ("DISCORD_MANAGER_DB", "/tmp/x.sqlite3"),
        ("DISCORD_MANAGER_READ_ONLY", "1"),
        ("DISCORD_MANAGER_SEND_CHANNELS", "333"),
        ("DISCORD_API_BASE", "http://127.0.0.1:8080/"),
    ])
    .unwrap();
    assert_eq!(config.token.as_ref().map(Token::expose), Some(TOKEN));
    assert_eq!(
        config.owner_id.as_ref(),
        Some(&discord_manager_playback::world::id("123456789012345678"))
    );
    assert_eq!(config.guild_scope.listed(), ["111", "222"]);
    assert_eq!(config.db_path, Some(PathBuf::from("/tmp/x.sqlite3")));
    assert!(config.read_only);
    assert_eq!(
        config.send_channel_ids,
        Some(vec![discord_manager_playback::world::id("333")])
    );
    assert_eq!(config.api_base.as_deref(), Some("http://127.0.0.1:8080"));
}

#[test]
fn direct_messages_and_link_previews_are_off_unless_turned_on() {
    let default = config(&[]).unwrap();
    assert!(!default.allow_dms);
    assert!(!default.link_previews);
    let on = config(&[
        ("DISCORD_MANAGER_ALLOW_DMS", "1"),
        ("DISCORD_MANAGER_LINK_PREVIEWS", "true"),
    ])
    .unwrap();
    assert!(on.allow_dms);
    assert!(on.link_previews);
    let off = config(&[("DISCORD_MANAGER_ALLOW_DMS", "0")]).unwrap();
    assert!(!off.allow_dms);
    let error = config(&[("DISCORD_MANAGER_LINK_PREVIEWS", "yes")]).unwrap_err();
    assert_eq!(
        error.message(),
        "DISCORD_MANAGER_LINK_PREVIEWS must be 1 (link previews on the bot's posts) or 0"
    );
}

#[test]
fn confirming_posts_is_off_unless_turned_on_and_refuses_anything_but_1_or_0_by_name() {
    assert!(!config(&[]).unwrap().confirm_posts);
    assert!(
        config(&[("DISCORD_MANAGER_CONFIRM_POSTS", "1")])
            .unwrap()
            .confirm_posts
    );
    assert!(
        !config(&[("DISCORD_MANAGER_CONFIRM_POSTS", "0")])
            .unwrap()
            .confirm_posts
    );
    let error = config(&[("DISCORD_MANAGER_CONFIRM_POSTS", "ask")]).unwrap_err();
    assert_eq!(
        error.message(),
        "DISCORD_MANAGER_CONFIRM_POSTS must be 1 (the owner confirms each of an assistant's \
         posts) or 0"
    );
}

#[test]
fn compressing_the_store_is_off_unless_turned_on_and_refuses_anything_but_1_or_0_by_name() {
    assert!(!config(&[]).unwrap().compress_store);
    let read = |value| config(&[("DISCORD_MANAGER_COMPRESS_STORE", value)]);
    assert!(read("1").unwrap().compress_store);
    assert!(!read("0").unwrap().compress_store);
    assert_eq!(
        read("zstd").unwrap_err().message(),
        "DISCORD_MANAGER_COMPRESS_STORE must be 1 (the store's pages compressed) or 0"
    );
}

#[test]
fn import_days_reads_a_number_all_or_zero_and_refuses_anything_else_by_name() {
    assert_eq!(config(&[]).unwrap().import_window, None);
    let read = |value| config(&[("DISCORD_MANAGER_IMPORT_DAYS", value)]);
    assert_eq!(
        read("30").unwrap().import_window,
        Some(ImportWindow::Days(30))
    );
    assert_eq!(read("all").unwrap().import_window, Some(ImportWindow::All));
    assert_eq!(read("0").unwrap().import_window, Some(ImportWindow::Off));
    let error = read("a week").unwrap_err();
    assert_eq!(
        error.kind(),
        discord_manager_vocabulary::error::ErrorKind::Config
    );
    assert_eq!(
        error.message(),
        "DISCORD_MANAGER_IMPORT_DAYS must be a whole number of days from 0 (no import) to \
         36500, or all"
    );
}

#[test]
fn never_shows_the_token_when_printed() {
    let config = config(&[("DISCORD_TOKEN", TOKEN)]).unwrap();
    assert!(!format!("{config:?}").contains("secret_token"));
}

#[test]
fn names_the_variable_that_is_wrong_without_repeating_its_value() {
    let error = config(&[("DISCORD_GUILD_IDS", "111,abc")]).unwrap_err();
    assert_eq!(
        error.message(),
        "DISCORD_GUILD_IDS must be Discord ids separated by commas; entry 2 is not one (it \
         is not shown here)"
    );
    let error = config(&[("DISCORD_MANAGER_READ_ONLY", "yes")]).unwrap_err();
    assert_eq!(
        error.message(),
        "DISCORD_MANAGER_READ_ONLY must be 1 (sending denied) or 0"
    );
}

/// The token pasted into the wrong variable is never printed back, whichever it is.
#[test]
fn a_token_in_the_wrong_variable_is_never_echoed() {
    for variable in [
        "DISCORD_OWNER_ID",
        "DISCORD_GUILD_IDS",
        "DISCORD_MANAGER_SEND_CHANNELS",
        "DISCORD_MANAGER_READ_ONLY",
        "DISCORD_API_BASE",
    ] {
        let error = config(&[(variable, TOKEN)]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config, "{variable}");
        assert!(error.message().starts_with(variable), "{}", error.message());
        for part in TOKEN.split('.') {
            assert!(!error.message().contains(part), "{}", error.message());
        }
    }
}

#[test]
fn a_malformed_token_is_a_configuration_error_that_does_not_show_it() {
    for token in [
        "secrettoken",
        "secret.token",
        "a.b.c.d",
        "a..c",
        ".b.c",
        "a.b.",
        "a.b c.d",
        "a.b.c\u{7f}",
        "a.b.c\u{0}",
        "a.bä.c",
        "a.b.c\r\nX-Injected: 1",
    ] {
        let error = config(&[("DISCORD_TOKEN", token)]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config, "{token:?}");
        assert_eq!(
            error.kind(),
            discord_manager_vocabulary::error::ErrorKind::Config
        );
        assert!(
            error
                .message()
                .starts_with("DISCORD_TOKEN is not a bot token"),
            "{}",
            error.message()
        );
        assert!(!error.message().contains(token), "{token:?}");
    }
    // The shape accepted: three parts of letters, digits, - and _ (and Discord's "Bot "
    // prefix, which serenity adds itself).
    for token in [TOKEN, "a.b.c", "A-_.9.z"] {
        assert_eq!(
            config(&[("DISCORD_TOKEN", token)])
                .unwrap()
                .token
                .as_ref()
                .map(Token::expose),
            Some(token)
        );
    }
    let prefixed = format!("Bot {TOKEN}");
    assert_eq!(
        config(&[("DISCORD_TOKEN", &prefixed)])
            .unwrap()
            .token
            .as_ref()
            .map(Token::expose),
        Some(TOKEN)
    );
}

#[test]
fn the_api_base_is_discord_or_a_fake_on_loopback_and_nothing_else() {
    for (given, kept) in [
        ("https://discord.com", "https://discord.com"),
        ("https://discord.com/", "https://discord.com"),
        ("http://127.0.0.1", "http://127.0.0.1"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
        ("http://localhost:1", "http://localhost:1"),
        ("http://localhost:65535", "http://localhost:65535"),
    ] {
        assert_eq!(
            config(&[("DISCORD_API_BASE", given)])
                .unwrap()
                .api_base
                .as_deref(),
            Some(kept),
            "{given}"
        );
    }
    for refused in [
        "http://discord.com",
        "https://discord.com.example.net",
        "https://discord.com:8443",
        "https://example.net",
        "http://10.0.0.5:8080",
        "http://127.0.0.1.example.net",
        "http://127.0.0.1@example.net",
        "http://localhost@example.net",
        "http://localhost.example.net",
        "http://127.0.0.1:0",
        "http://127.0.0.1:65536",
        "http://127.0.0.1:",
        "http://127.0.0.1:80x",
        "http://127.0.0.1:8080/api",
        "https://127.0.0.1",
        "127.0.0.1:8080",
    ] {
        let error = config(&[("DISCORD_API_BASE", refused)]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Config, "{refused}");
        assert!(!error.message().contains(refused), "{}", error.message());
        assert!(
            error
                .message()
                .starts_with("DISCORD_API_BASE must be https://discord.com"),
            "{}",
            error.message()
        );
    }
}

#[test]
fn a_file_that_does_not_parse_is_refused_without_quoting_its_line() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join(".env");
    std::fs::write(&path, format!("DISCORD_TOKEN='{TOKEN}\n")).unwrap();
    let error = read_variables(&path, ".env", Reach::NotThroughALink).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(error.message().starts_with("The file .env cannot be read"));
    assert!(
        !error.message().contains("secret_token"),
        "{}",
        error.message()
    );
    // A missing file is simply no variables.
    assert_eq!(
        read_variables(
            &folder.path().join("absent"),
            ".env",
            Reach::NotThroughALink
        )
        .unwrap(),
        HashMap::new()
    );
}

#[cfg(unix)]
#[test]
fn writing_the_config_file_replaces_its_settings_keeps_every_other_line_and_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("discord-manager").join("config.env");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        "# mine\nDISCORD_TOKEN=old.token.here\nDISCORD_MANAGER_SEND_CHANNELS=333\n\
         export DISCORD_TOKEN=older.still.here\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    write_config_file(
        &path,
        &[
            ("DISCORD_TOKEN", TOKEN.to_string()),
            ("DISCORD_GUILD_IDS", String::new()),
        ],
    )
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        format!(
            "# mine\nDISCORD_TOKEN={TOKEN}\nDISCORD_MANAGER_SEND_CHANNELS=333\n\
             DISCORD_GUILD_IDS=\n"
        )
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // What was written reads back: empty guild ids are every guild.
    let read = read_private_file(&path, "config file").unwrap();
    let config = Config::from_lookup(|name| read.get(name).cloned()).unwrap();
    assert_eq!(config.token.as_ref().map(Token::expose), Some(TOKEN));
    assert_eq!(config.guild_scope, GuildScope::every_guild());
    assert_eq!(
        config.send_channel_ids,
        Some(vec![discord_manager_playback::world::id("333")])
    );
    // A fresh file, in a fresh folder private to the owner.
    let fresh = folder.path().join("new").join("config.env");
    write_config_file(&fresh, &[("DISCORD_OWNER_ID", "1".into())]).unwrap();
    assert_eq!(
        std::fs::read_to_string(&fresh).unwrap(),
        "DISCORD_OWNER_ID=1\n"
    );
    let folder_mode = std::fs::metadata(fresh.parent().unwrap())
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(folder_mode, 0o700);
}

#[cfg(unix)]
#[test]
fn the_config_file_is_read_only_while_no_one_else_may_read_it() {
    use std::os::unix::fs::PermissionsExt;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("config.env");
    std::fs::write(&path, "DISCORD_OWNER_ID=123456789012345678\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert_eq!(
        read_private_file(&path, "config file")
            .unwrap()
            .get("DISCORD_OWNER_ID")
            .map(String::as_str),
        Some("123456789012345678")
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    let error = read_private_file(&path, "config file").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert_eq!(
        error.message(),
        format!(
            "The config file {0} may be read by others (mode 0640): make it the owner's \
             only with `chmod 600 {0}`",
            path.display()
        )
    );
}

#[test]
fn every_guild_is_in_an_unlisted_scope_and_only_the_listed_ones_in_a_listed_one() {
    let every = GuildScope::every_guild();
    assert!(every.includes(&discord_manager_playback::world::id("111")));
    assert!(every.includes(&discord_manager_playback::world::id("999")));
    assert_eq!(every.listed(), [] as [String; 0]);
    let listed = GuildScope::only(vec![
        discord_manager_playback::world::id("111"),
        discord_manager_playback::world::id("222"),
    ]);
    assert!(listed.includes(&discord_manager_playback::world::id("111")));
    assert!(listed.includes(&discord_manager_playback::world::id("222")));
    assert!(!listed.includes(&discord_manager_playback::world::id("333")));
    // An id is a whole word: a listed guild's prefix or extension is another guild.
    assert!(!listed.includes(&discord_manager_playback::world::id("11")));
    assert!(!listed.includes(&discord_manager_playback::world::id("1111")));
    // Listing none is every guild, as an unset DISCORD_GUILD_IDS is.
    assert_eq!(GuildScope::only(Vec::new()), every);
}

#[cfg(unix)]
#[test]
fn a_dot_env_that_is_a_link_a_device_a_pipe_or_huge_is_refused_unread() {
    let folder = tempfile::tempdir().unwrap();
    let dot_env = folder.path().join(".env");
    let refusal = |reach: Reach| {
        read_variables(&dot_env, ".env", reach)
            .unwrap_err()
            .message()
            .to_string()
    };
    // A link to a device that never ends: it used to be read until a 2 GiB allocation failed.
    std::os::unix::fs::symlink("/dev/zero", &dot_env).unwrap();
    assert_eq!(
        refusal(Reach::NotThroughALink),
        "The file .env is not read: it is a symbolic link"
    );
    // The owner's own file may be a link, never to a device.
    let not_regular = "The file .env is not read: it is not a regular file (a device, a pipe or \
                       a folder): write one NAME=value per line in a plain file";
    assert_eq!(refusal(Reach::FollowingLinks), not_regular);
    std::fs::remove_file(&dot_env).unwrap();

    // A pipe would wait for a writer for ever.
    let made = std::process::Command::new("mkfifo")
        .arg(&dot_env)
        .status()
        .unwrap();
    assert!(made.success());
    assert_eq!(refusal(Reach::NotThroughALink), not_regular);
    assert_eq!(refusal(Reach::FollowingLinks), not_regular);
    std::fs::remove_file(&dot_env).unwrap();

    // Both sides of the size cap.
    let line = |bytes: u64| {
        let mut text = "DISCORD_MANAGER_READ_ONLY=".to_string();
        text.push_str(&"1".repeat(bytes as usize - text.len() - 1));
        text.push('\n');
        text
    };
    std::fs::write(&dot_env, line(MOST_SETTINGS_BYTES)).unwrap();
    let read = read_variables(&dot_env, ".env", Reach::NotThroughALink).unwrap();
    assert_eq!(read["DISCORD_MANAGER_READ_ONLY"].len(), 65_509);
    std::fs::write(&dot_env, line(MOST_SETTINGS_BYTES + 1)).unwrap();
    assert_eq!(
        refusal(Reach::NotThroughALink),
        "The file .env is not read: it is larger than a settings file may be (65536 bytes)"
    );
}
