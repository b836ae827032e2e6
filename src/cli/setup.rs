//! `discord-manager setup`: the one command after install. It takes the bot token (on
//! standard input, or at a prompt that does not show it: never as an argument, which would
//! land in shell history), asks Discord whose bot it is, which application and owner, and
//! which guilds it is in, keeps the guilds the owner chooses in scope, and writes the owner's
//! config file (mode 0600). It then says which privileged intents to switch on and where, and
//! prints the invite URL with exactly the permissions the product uses, each explained.
//!
//! Scripts run it without a terminal: `--token-stdin`, `--guild ID` (repeated) or
//! `--all-guilds`, `--owner-id`, and `--yes` to replace an existing config file's values.
//! Prompts and questions go to stderr; the report goes to stdout. The token is never printed.

use std::fmt;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::Path;
use std::str::FromStr;

use clap::ArgMatches;
use discord_manager_core::config::{self, Config, Token};
use discord_manager_discord::bot_check::{
    self, BOT_PERMISSIONS, BotProfile, bot_settings_url, invite_url, privileged_intents,
};
use discord_manager_discord::rest::{GuildSummary, RestError};
use discord_manager_vocabulary::error::{Error, ErrorKind, Result};
use discord_manager_vocabulary::snowflake::{ApplicationId, GuildId, UserId};

/// The variables setup writes; every other line of the config file is kept.
const WRITTEN: [&str; 3] = ["DISCORD_TOKEN", "DISCORD_OWNER_ID", "DISCORD_GUILD_IDS"];

/// How the guilds in scope were chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Scope {
    /// Every guild the bot is in, now and later (`DISCORD_GUILD_IDS` empty).
    Every,
    Only(Vec<GuildId>),
}

/// Runs setup; answers the report to print.
pub fn run(options: &ArgMatches) -> Result<String> {
    let interactive = !options.get_flag("token-stdin");
    if interactive && !std::io::stdin().is_terminal() {
        return Err(Error::input(
            "setup asks for the token at a prompt, and standard input is not a terminal: pipe \
             the token in with --token-stdin",
        ));
    }
    let token = read_token(interactive)?;
    let config = Config::from_env()?;
    let path = config::config_file_path().ok_or_else(|| {
        Error::config("Cannot tell where the config file goes: set HOME or XDG_CONFIG_HOME")
    })?;
    let profile = ask_discord(&token, config.api_base.as_deref())?;
    let scope = choose_scope(options, &profile.guilds, interactive)?;
    let owner_id = match options.get_one::<String>("owner-id") {
        Some(id) => Some(discord_id("--owner-id", id)?),
        None => profile.application.owner_id,
    };
    if path.exists() && !options.get_flag("yes") && !confirm_replace(&path, interactive)? {
        return Err(Error::conflict(format!(
            "{} was left as it was: nothing was written",
            path.display()
        )));
    }
    let guild_ids = match &scope {
        Scope::Every => String::new(),
        Scope::Only(ids) => ids
            .iter()
            .map(GuildId::to_string)
            .collect::<Vec<_>>()
            .join(","),
    };
    let mut settings = vec![("DISCORD_TOKEN", token.expose().to_string())];
    if let Some(owner) = &owner_id {
        settings.push(("DISCORD_OWNER_ID", owner.to_string()));
    }
    settings.push(("DISCORD_GUILD_IDS", guild_ids));
    config::write_config_file(&path, &settings)?;
    Ok(report(&profile, &scope, owner_id.as_ref(), &path))
}

/// The token from standard input (`--token-stdin`) or a prompt that does not echo it.
fn read_token(interactive: bool) -> Result<Token> {
    let mut text = String::new();
    if interactive {
        eprint!(
            "Bot token (Developer Portal → your application → Bot → Reset Token; it is not \
             shown as you type): "
        );
        let _ = std::io::stderr().flush();
        let hidden = set_echo(false);
        let read = std::io::stdin().lock().read_line(&mut text);
        if hidden {
            set_echo(true);
            eprintln!();
        }
        read.map_err(|_| Error::input("The token could not be read from the terminal"))?;
    } else {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|_| Error::input("The token could not be read from standard input"))?;
    }
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::input(
            "No token was given: copy it from the Developer Portal → your application → Bot → \
             Reset Token",
        ));
    }
    Token::parse(text).map_err(|_| {
        Error::input(
            "That is not a bot token: a token is three parts separated by dots, made of \
             letters, digits, - and _ only (copy it again from the Developer Portal → your \
             application → Bot → Reset Token; what was given is not shown here)",
        )
    })
}

/// Turns the terminal's echo off or back on (`stty`); answers whether it did.
fn set_echo(on: bool) -> bool {
    std::process::Command::new("stty")
        .arg(if on { "echo" } else { "-echo" })
        .stdin(std::process::Stdio::inherit())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Whose bot the token is, over REST; a rejected token is said so, and nothing is written.
fn ask_discord(token: &Token, api_base: Option<&str>) -> Result<BotProfile> {
    let rest = bot_check::rest_for_a_check(token, api_base)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Error::internal("Cannot start the runtime").with_source(error))?;
    runtime
        .block_on(bot_check::bot_profile(&rest))
        .map_err(|error| match error {
            RestError::Unauthorized => Error::new(
                ErrorKind::Discord,
                "Discord rejected this token (401 Unauthorized): copy it again from the \
                 Developer Portal → your application → Bot → Reset Token; nothing was written",
            ),
            other => Error::new(
                ErrorKind::Discord,
                format!("{}; nothing was written", other.describe()),
            ),
        })
}

/// The guilds to keep in scope: from `--guild` or `--all-guilds`, else asked.
fn choose_scope(options: &ArgMatches, guilds: &[GuildSummary], interactive: bool) -> Result<Scope> {
    if options.get_flag("all-guilds") {
        return Ok(Scope::Every);
    }
    if let Some(given) = options.get_many::<String>("guild") {
        let mut ids = Vec::new();
        for id in given {
            let id = discord_id("--guild", id)?;
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        return Ok(Scope::Only(ids));
    }
    if guilds.is_empty() {
        return Ok(Scope::Every);
    }
    if !interactive {
        return Err(Error::input(format!(
            "Say which guilds to keep in scope: --guild ID (repeated) or --all-guilds; the bot \
             is in {}",
            guild_list(guilds.iter())
        )));
    }
    ask_scope(guilds)
}

/// Lists the bot's guilds and asks which to keep, until the answer is one.
fn ask_scope(guilds: &[GuildSummary]) -> Result<Scope> {
    eprintln!("The bot is in these guilds:");
    for (number, guild) in guilds.iter().enumerate() {
        eprintln!("  {}. {} ({})", number + 1, guild.name, guild.id);
    }
    loop {
        let answer = ask(
            "Keep which in scope? Numbers separated by commas, or Enter for every guild (those it \
             joins later too): ",
        )?;
        match chosen_scope(&answer, guilds) {
            Some(scope) => return Ok(scope),
            None => eprintln!(
                "Give numbers from 1 to {}, separated by commas.",
                guilds.len()
            ),
        }
    }
}

/// The scope an answer to the guild question names: empty is every guild; else numbers of
/// the list, from 1, separated by commas (each guild once). None when a number is not one of
/// the list.
fn chosen_scope(answer: &str, guilds: &[GuildSummary]) -> Option<Scope> {
    if answer.trim().is_empty() {
        return Some(Scope::Every);
    }
    let mut ids: Vec<GuildId> = Vec::new();
    for number in answer.split(',') {
        let index = number.trim().parse::<usize>().ok()?.checked_sub(1)?;
        let id = &guilds.get(index)?.id;
        if !ids.contains(id) {
            ids.push(*id);
        }
    }
    Some(Scope::Only(ids))
}

/// Whether to replace the values of an existing config file.
fn confirm_replace(path: &Path, interactive: bool) -> Result<bool> {
    if !interactive {
        return Err(Error::conflict(format!(
            "{} already exists: run again with --yes to replace its {} (every other line is \
             kept); nothing was written",
            path.display(),
            WRITTEN.join(", ")
        )));
    }
    let answer = ask(&format!(
        "{} already exists: replace its {} (every other line is kept)? [y/N] ",
        path.display(),
        WRITTEN.join(", ")
    ))?;
    Ok(matches!(answer.to_ascii_lowercase().as_str(), "y" | "yes"))
}

/// Asks on stderr; answers the line typed, trimmed.
fn ask(question: &str) -> Result<String> {
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    let read = std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|_| Error::input("The answer could not be read from the terminal"))?;
    if read == 0 {
        return Err(Error::input(
            "No answer (end of input): nothing was written",
        ));
    }
    Ok(line.trim().to_string())
}

fn discord_id<Id: FromStr>(option: &str, text: &str) -> Result<Id> {
    text.parse().map_err(|_| {
        Error::input(format!(
            "`{option}` must be a Discord id (a string of digits such as \
                 \"1189078123456789012\")"
        ))
    })
}

fn guild_list<'a>(guilds: impl Iterator<Item = &'a GuildSummary>) -> String {
    let names: Vec<String> = guilds
        .map(|guild| format!("{} ({})", guild.name, guild.id))
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// What setup did and what is left to the owner: the bot, the scope, the file, the intents
/// and the invite.
fn report(profile: &BotProfile, scope: &Scope, owner_id: Option<&UserId>, path: &Path) -> String {
    let mut out = String::new();
    let _ = write_report(&mut out, profile, scope, owner_id, path);
    out
}

fn write_report(
    out: &mut impl fmt::Write,
    profile: &BotProfile,
    scope: &Scope,
    owner_id: Option<&UserId>,
    path: &Path,
) -> fmt::Result {
    let application = &profile.application;
    writeln!(
        out,
        "The token belongs to the bot {} ({}) of the application {} ({}), owned by {}.",
        profile.user_name,
        profile.user_id,
        application.name,
        application.id,
        owner_id.map_or(
            "nobody Discord names (give --owner-id)".to_string(),
            UserId::to_string
        )
    )?;
    write_scope(out, scope, &profile.guilds)?;
    let written: Vec<&str> = WRITTEN
        .iter()
        .copied()
        .filter(|name| *name != "DISCORD_OWNER_ID" || owner_id.is_some())
        .collect();
    writeln!(
        out,
        "Wrote {} (mode 0600): {}.",
        path.display(),
        written.join(", ")
    )?;
    for (name, place) in config::set_elsewhere(&WRITTEN) {
        writeln!(
            out,
            "Note: {name} is also set in {place}, which wins over the config file."
        )?;
    }
    writeln!(out)?;
    write_intents(out, application.flags, &application.id)?;
    writeln!(out)?;
    writeln!(out, "Invite the bot with exactly the permissions it uses:")?;
    writeln!(out, "  {}", invite_url(&application.id))?;
    for permission in BOT_PERMISSIONS {
        writeln!(out, "  {}: {}", permission.name, permission.why)?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Next: `discord-manager ingest` records what the bot sees; `discord-manager doctor` \
         checks everything; `discord-manager mcp config <client> --write` connects your \
         assistant."
    )
}

fn write_scope(out: &mut impl fmt::Write, scope: &Scope, guilds: &[GuildSummary]) -> fmt::Result {
    match scope {
        Scope::Every if guilds.is_empty() => writeln!(
            out,
            "The bot is in no guild yet: invite it with the URL below; every guild it joins is \
             in scope."
        ),
        Scope::Every => writeln!(
            out,
            "In scope: every guild the bot is in, now and later: {}.",
            guild_list(guilds.iter())
        ),
        Scope::Only(ids) => {
            let named = |id: &GuildId| {
                guilds.iter().find(|guild| guild.id == *id).map_or_else(
                    || id.to_string(),
                    |guild| format!("{} ({})", guild.name, id),
                )
            };
            let not_in: Vec<String> = ids
                .iter()
                .filter(|id| !guilds.iter().any(|guild| guild.id == **id))
                .map(GuildId::to_string)
                .collect();
            writeln!(
                out,
                "In scope: {}.",
                ids.iter().map(named).collect::<Vec<_>>().join(", ")
            )?;
            if !not_in.is_empty() {
                writeln!(
                    out,
                    "Not in yet: {}: invite the bot there with the URL below.",
                    not_in.join(", ")
                )?;
            }
            let outside: Vec<&GuildSummary> = guilds
                .iter()
                .filter(|guild| !ids.contains(&guild.id))
                .collect();
            if !outside.is_empty() {
                writeln!(out, "Out of scope: {}.", guild_list(outside.into_iter()))?;
            }
            Ok(())
        }
    }
}

fn write_intents(
    out: &mut impl fmt::Write,
    flags: u64,
    application_id: &ApplicationId,
) -> fmt::Result {
    writeln!(
        out,
        "Privileged intents (Developer Portal → your application → Bot → Privileged Gateway \
         Intents: {}):",
        bot_settings_url(application_id)
    )?;
    for intent in privileged_intents(flags) {
        match (intent.needed, intent.enabled) {
            (true, true) => writeln!(out, "  {}: on (needed: {})", intent.name, intent.why)?,
            (true, false) => writeln!(
                out,
                "  {}: OFF: switch it on there, then save; {}",
                intent.name, intent.why
            )?,
            (false, enabled) => writeln!(
                out,
                "  {}: {} ({})",
                intent.name,
                if enabled { "on" } else { "off" },
                intent.why
            )?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guilds() -> Vec<GuildSummary> {
        ["Lighthouse Labs", "Side Project", "Book Club"]
            .iter()
            .enumerate()
            .map(|(index, name)| GuildSummary {
                id: format!("12000000000000000{index:02}").parse().unwrap(),
                name: name.to_string(),
            })
            .collect()
    }

    #[test]
    fn the_guild_answer_is_every_guild_or_numbers_of_the_list_and_nothing_else() {
        let guilds = guilds();
        assert_eq!(chosen_scope("", &guilds), Some(Scope::Every));
        assert_eq!(chosen_scope("  ", &guilds), Some(Scope::Every));
        assert_eq!(
            chosen_scope("3, 1,3", &guilds),
            Some(Scope::Only(vec![guilds[2].id, guilds[0].id]))
        );
        // Both ends of the list, and just past them.
        assert_eq!(
            chosen_scope("1", &guilds),
            Some(Scope::Only(vec![guilds[0].id]))
        );
        assert_eq!(
            chosen_scope("3", &guilds),
            Some(Scope::Only(vec![guilds[2].id]))
        );
        for refused in ["0", "4", "1,4", "one", "1,,2", "-1", "1.5"] {
            assert_eq!(chosen_scope(refused, &guilds), None, "{refused:?}");
        }
    }
}
