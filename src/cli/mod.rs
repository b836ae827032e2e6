//! The command line: the registry projected onto clap, plus the machine surfaces
//! (`ingest`, `seed`, `mcp`, `setup`, `doctor`, `backup`, `completions`).
//!
//! A capability's command and options are built from its input schema, so every input field
//! is an option (`--channel-id`) with the field's own description as help; the arguments are
//! gathered back into the same JSON object an MCP client would send and go through the same
//! validation and the same business call. Output is the capability's result rendered as a
//! table, or with `--json` exactly the MCP tool's structured result.

pub mod backup;
pub mod doctor;
pub mod mcp_config;
pub mod render;
pub mod setup;
pub mod watch;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Arg, ArgAction, ArgMatches, Command};
use discord_manager_core::business::{self, Source};
use discord_manager_core::config::Config;
use discord_manager_core::config::ImportWindow;
use discord_manager_core::registry::{self, Capability, Services};
use discord_manager_discord::identify_watch::IdentifyCount;
use discord_manager_store::{PageCompression, Store};
use discord_manager_vocabulary::error::{Error, Result};
use discord_manager_vocabulary::snowflake::ID_FORMAT;
use serde_json::{Map, Number, Value};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// What the parent command of a group of capabilities says in `--help`.
const GROUPS: &[(&str, &str)] = &[
    (
        "attachments",
        "The files of messages, as the store keeps them",
    ),
    (
        "bookmarks",
        "Keep messages to come back to: add, list, resolve",
    ),
    ("channels", "Channels and threads in scope"),
    ("mentions", "Messages that mention you"),
    (
        "schedules",
        "Messages to send later as the bot: add, list, cancel",
    ),
];

/// The capabilities whose command also takes `--out FILE`, to write the file the result
/// holds (a kept attachment's original bytes): MCP has no file of the owner's to write to.
pub const WRITES_OUT: &[&str] = &["attachments_get"];

/// The whole command tree: every capability, then the machine surfaces.
pub fn command_tree() -> Command {
    let mut root = Command::new("discord-manager")
        .version(env!("CARGO_PKG_VERSION"))
        .about("A self-hosted, single-owner Discord assistant: catch up, mentions, bookmarks and search from a complete local store; send and schedule messages as your bot")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .arg(
            Arg::new("json")
                .long("json")
                .global(true)
                .action(ArgAction::SetTrue)
                .help("Print the result as JSON (exactly the MCP tool's structured result)"),
        )
        .arg(
            Arg::new("db")
                .long("db")
                .global(true)
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The store's path [default: DISCORD_MANAGER_DB, else the user's data directory]"),
        );
    root = capability_commands(root);
    root.subcommand(seed_command())
        .subcommand(mcp_command())
        .subcommand(ingest_command())
        .subcommand(setup_command())
        .subcommand(
            Command::new("doctor")
                .about("Check everything the assistant needs, one line each with the fix for each failure: the token and the Message Content intent, the guilds in scope, the channels the bot cannot read, the store, the ingest daemon and its freshness, the clock, the MCP server (exit 1 when a check fails)"),
        )
        .subcommand(backup_command())
        .subcommand(watch::command())
        .subcommand(
            Command::new("completions")
                .about("Print a shell completion script")
                .arg(
                    Arg::new("shell")
                        .required(true)
                        .value_parser(["bash", "zsh", "fish"])
                        .help("The shell to complete for"),
                ),
        )
}

/// Every capability's command, from the registry: one word at the top, or two under its group.
fn capability_commands(mut root: Command) -> Command {
    let mut groups: Vec<(&str, Vec<Command>)> = Vec::new();
    for capability in registry::capabilities() {
        match capability.command {
            [name] => root = root.subcommand(capability_command(name, capability)),
            [group, name] => {
                let command = capability_command(name, capability);
                match groups.iter_mut().find(|(existing, _)| existing == group) {
                    Some((_, commands)) => commands.push(command),
                    None => groups.push((group, vec![command])),
                }
            }
            _ => unreachable!("capability commands are one or two words deep"),
        }
    }
    for (group, commands) in groups {
        let about = GROUPS
            .iter()
            .find(|(name, _)| *name == group)
            .map_or("", |(_, about)| *about);
        root = root.subcommand(
            Command::new(group)
                .about(about)
                .subcommand_required(true)
                .arg_required_else_help(true)
                .subcommands(commands),
        );
    }
    root
}

fn seed_command() -> Command {
    Command::new("seed")
        .about("Build a demo store from the scripted feed in seed/ (no Discord token needed)")
        .arg(
            Arg::new("replace")
                .long("replace")
                .action(ArgAction::SetTrue)
                .help("Delete the store first if it is not empty"),
        )
}

fn backup_command() -> Command {
    Command::new("backup")
        .about("Copy the store to PATH while ingest runs: one consistent moment, checked with SQLite's integrity_check, written 0600; never overwrites a file")
        .arg(
            Arg::new("path")
                .required(true)
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Where to write the copy (a file that does not exist yet)"),
        )
}

fn mcp_command() -> Command {
    Command::new("mcp")
            .about("Serve every capability as an MCP tool over stdio")
            .subcommand(
                Command::new("config")
                    .about("Print the entry an MCP client needs to start this server (this binary, this store), or merge it into the client's file with --write")
                    .arg(
                        Arg::new("client")
                            .required(true)
                            .value_parser(mcp_config::Client::NAMES)
                            .help("project (.mcp.json here), claude-desktop, cursor, or vscode (.vscode/mcp.json here)"),
                    )
                    .arg(
                        Arg::new("write")
                            .long("write")
                            .action(ArgAction::SetTrue)
                            .help("Write the entry into the client's configuration file, whole, keeping its other servers"),
                    )
                    .arg(
                        Arg::new("force")
                            .long("force")
                            .action(ArgAction::SetTrue)
                            .help("With --write: replace an existing discord-manager entry whose env sets more than the store (it may loosen your protections; it is shown)"),
                    )
                    .arg(
                        Arg::new("file")
                            .long("file")
                            .value_name("PATH")
                            .value_parser(clap::value_parser!(PathBuf))
                            .help("The file to write instead of the client's usual one (with --write)"),
                    ),
            )
}

fn ingest_command() -> Command {
    Command::new("ingest")
            .about("Keep the bot's gateway connection and record every event into the store, backfilling what was missed (needs DISCORD_TOKEN; stop with Ctrl-C or SIGTERM)")
            .arg(
                Arg::new("repair-every")
                    .long("repair-every")
                    .value_name("SECONDS")
                    .value_parser(clap::value_parser!(u64).range(1..))
                    .default_value("300")
                    .help("How often every channel is checked against Discord for messages the gateway did not deliver"),
            )
            .arg(
                Arg::new("import-days")
                    .long("import-days")
                    .value_name("DAYS|all")
                    .value_parser(|text: &str| {
                        ImportWindow::parse(text)
                            .ok_or_else(|| format!("--import-days must be {}", ImportWindow::wanted()))
                    })
                    .help("How much history from before the store began to import for each channel it has never covered: days before the channel was first seen, 0 for none, or all (default: DISCORD_MANAGER_IMPORT_DAYS, else 7)"),
            )
}

/// `setup`: the token on standard input or at a prompt, never as an argument.
fn setup_command() -> Command {
    Command::new("setup")
        .about("Configure the bot: check its token with Discord, choose the guilds in scope, write the config file (mode 0600), and print the invite URL and the intents to switch on")
        .arg(
            Arg::new("token-stdin")
                .long("token-stdin")
                .action(ArgAction::SetTrue)
                .help("Read the bot token from standard input instead of a prompt (for scripts; it is never taken as an argument)"),
        )
        .arg(
            Arg::new("guild")
                .long("guild")
                .value_name("ID")
                .action(ArgAction::Append)
                .conflicts_with("all-guilds")
                .help("Keep this guild in scope (repeat for more) instead of being asked"),
        )
        .arg(
            Arg::new("all-guilds")
                .long("all-guilds")
                .action(ArgAction::SetTrue)
                .help("Keep every guild the bot is in, now and later, in scope"),
        )
        .arg(
            Arg::new("owner-id")
                .long("owner-id")
                .value_name("ID")
                .help("Your Discord user id [default: the application's owner, as Discord says]"),
        )
        .arg(
            Arg::new("yes")
                .long("yes")
                .action(ArgAction::SetTrue)
                .help("Replace the token, owner and guilds of an existing config file without asking"),
        )
}

/// One capability's command: an option per input field, help from the field's description.
fn capability_command(name: &'static str, capability: &Capability) -> Command {
    let mut command = Command::new(name)
        .about(first_sentence(&capability.description))
        .long_about(capability.description.clone());
    for (field, schema) in properties(capability) {
        let help = schema
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let mut option = Arg::new(field.clone()).long(kebab_case(field)).help(help);
        option = match (field_type(schema), nullable(schema)) {
            // A switch that is off unless given.
            ("boolean", false) => option.action(ArgAction::SetTrue),
            // Three ways, as over MCP: absent (either), `--pinned` or `--pinned true`, and
            // `--pinned false`.
            ("boolean", true) => option
                .value_name("true|false")
                .num_args(0..=1)
                .require_equals(false)
                .default_missing_value("true")
                .value_parser(Suggested(vec!["true".into(), "false".into()]))
                .action(ArgAction::Set),
            _ => {
                let option = option.value_name(value_name(schema)).action(ArgAction::Set);
                match words(schema) {
                    Some(words) => option.value_parser(Suggested(words)),
                    None => option,
                }
            }
        };
        if capability.positional == Some(field.as_str()) {
            command = command.arg(
                Arg::new(positional_id(field))
                    .index(1)
                    .value_name(value_name(schema))
                    .conflicts_with(field.clone())
                    .help(format!("The same as --{}", kebab_case(field))),
            );
        }
        command = command.arg(option);
    }
    if WRITES_OUT.contains(&capability.name) {
        command = command.arg(
            Arg::new("out")
                .long("out")
                .value_name("FILE")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Write the kept file's original bytes to FILE (a new file, 0600; an existing one is never overwritten) instead of printing the page"),
        );
    }
    command
}

/// Whether a field may be left unset as well as given either way (`["boolean", "null"]`).
fn nullable(schema: &Value) -> bool {
    schema
        .get("type")
        .and_then(Value::as_array)
        .is_some_and(|kinds| kinds.iter().any(|kind| kind == "null"))
}

/// The words a field takes, when its schema lists them (`enum`), for completions and help.
fn words(schema: &Value) -> Option<Vec<String>> {
    let words: Vec<String> = schema
        .get("enum")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect();
    (!words.is_empty()).then_some(words)
}

/// A value parser that suggests its words (shell completions, `--help`) yet accepts any text,
/// so a wrong word is refused by the business layer in the same words as over MCP.
#[derive(Clone)]
struct Suggested(Vec<String>);

impl clap::builder::TypedValueParser for Suggested {
    type Value = String;

    fn parse_ref(
        &self,
        _command: &Command,
        _arg: Option<&Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        Ok(value.to_string_lossy().into_owned())
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(|word| {
            clap::builder::PossibleValue::new(word.as_str().to_string())
        })))
    }
}

fn properties(capability: &Capability) -> impl Iterator<Item = (&String, &Value)> {
    capability
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|properties| properties.iter())
}

fn field_type(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(kind)) => kind,
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .find(|kind| *kind != "null")
            .unwrap_or("string"),
        _ => "string",
    }
}

fn value_name(schema: &Value) -> &'static str {
    match field_type(schema) {
        "integer" | "number" => "N",
        _ if schema.get("format").and_then(Value::as_str) == Some("date-time") => "INSTANT",
        // A channel's or a message's id, or a Discord link to it.
        _ if schema
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|format| format.ends_with("-id-or-link")) =>
        {
            "ID|LINK"
        }
        _ if schema.get("format").and_then(Value::as_str) == Some(ID_FORMAT) => "ID",
        _ => "TEXT",
    }
}

fn positional_id(field: &str) -> String {
    format!("{field} (positional)")
}

fn kebab_case(camel: &str) -> String {
    let mut kebab = String::with_capacity(camel.len() + 4);
    for character in camel.chars() {
        if character.is_ascii_uppercase() {
            kebab.push('-');
            kebab.push(character.to_ascii_lowercase());
        } else {
            kebab.push(character);
        }
    }
    kebab
}

fn first_sentence(text: &str) -> String {
    match text.find(". ") {
        Some(end) => text[..=end].to_string(),
        None => text.to_string(),
    }
}

/// Gathers a capability's options back into the JSON object an MCP client would send. Values
/// are typed by the schema (a number stays a number if it parses as one); anything that does
/// not fit is passed on as text for the business layer to refuse in the owner's words.
fn arguments(capability: &Capability, matches: &ArgMatches) -> Value {
    let mut object = Map::new();
    for (field, schema) in properties(capability) {
        let kind = field_type(schema);
        if kind == "boolean" && !nullable(schema) {
            if matches.get_flag(field) {
                object.insert(field.clone(), Value::Bool(true));
            }
            continue;
        }
        let given = matches.get_one::<String>(field).or_else(|| {
            matches
                .try_get_one::<String>(&positional_id(field))
                .ok()
                .flatten()
        });
        let Some(text) = given else { continue };
        let value = match kind {
            "boolean" => match text.as_str() {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            "integer" => text
                .parse::<i64>()
                .map(Number::from)
                .map(Value::Number)
                .ok(),
            "number" => text
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map(Value::Number),
            _ => None,
        };
        object.insert(
            field.clone(),
            value.unwrap_or_else(|| Value::String(text.clone())),
        );
    }
    Value::Object(object)
}

/// How the CLI ends: an owner-worded error, a closed pipe (a quiet, successful exit), or a
/// command that printed its own report and ends with its own code (`doctor`).
pub(crate) enum Failure {
    Error(Error),
    ClosedPipe,
    Exit(u8),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::Error(error)
    }
}

/// Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
pub(crate) fn color_enabled() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
        && std::io::stderr().is_terminal()
}

/// Installs the log output on stderr and, beside it, the IDENTIFY counter, whose count it
/// returns (the daemon's IDENTIFY budget reads it).
pub(crate) fn init_logging(default: &str) -> IdentifyCount {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Logs go to stderr: stdout carries results (and, for `mcp`, nothing but JSON-RPC).
    // Beside them, the IDENTIFY counter, with its own filter: the log level never hides an
    // IDENTIFY from the budget.
    let output = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(color_enabled())
        .with_filter(filter);
    let identifies = IdentifyCount::default();
    let _ = tracing_subscriber::registry()
        .with(output)
        .with(identifies.layer())
        .try_init();
    identifies
}

/// `ingest`: the daemon, on a store it may write, with its options.
pub(crate) fn run_ingest(db: Option<PathBuf>, options: &ArgMatches) -> Result<(), Failure> {
    let identifies = init_logging("warn,discord_manager=info");
    let config = Config::from_env()?;
    let store = Store::open_writable_as(&store_path(db, &config)?, page_compression(&config))?;
    full_disk_lever(&store)?;
    let repair_every = *options
        .get_one::<u64>("repair-every")
        .expect("clap has a default");
    // The option, else the environment, else a week.
    let import = options
        .get_one::<ImportWindow>("import-days")
        .copied()
        .or(config.import_window)
        .unwrap_or(ImportWindow::DEFAULT);
    discord_manager_discord::daemon::run_ingest(
        &config,
        store,
        discord_manager_discord::daemon::IngestOptions {
            repair_every: std::time::Duration::from_secs(repair_every),
            import,
            ..Default::default()
        },
        identifies,
    )?;
    Ok(())
}

/// A lever for the tests of a full disk, in the debug builds they run only (a release binary
/// reads no such variable): with `DISCORD_MANAGER_TEST_STORE_ROOM_PAGES` set, the store may
/// grow by that many pages only.
fn full_disk_lever(store: &Store) -> Result<()> {
    if cfg!(debug_assertions)
        && let Some(pages) = std::env::var("DISCORD_MANAGER_TEST_STORE_ROOM_PAGES")
            .ok()
            .and_then(|pages| pages.parse::<u64>().ok())
    {
        store.limit_growth(pages)?;
    }
    Ok(())
}

/// `doctor`: the checklist, as lines or `--json`; exit 1 when a check failed.
pub(crate) fn run_doctor(db: Option<PathBuf>, json: bool) -> Result<(), Failure> {
    init_logging("error");
    let report = doctor::run(db);
    let text = if json {
        pretty_json(&report)?
    } else {
        render::terminal_safe(&report.render()).into_owned()
    };
    write_stdout(text.as_bytes())?;
    if report.passed {
        Ok(())
    } else {
        Err(Failure::Exit(1))
    }
}

/// A capability's command: its call through the registry with the owner's context, and its
/// answer as a page or as the JSON the MCP tool returns.
pub(crate) fn run_capability(
    db: Option<PathBuf>,
    json: bool,
    name: &str,
    sub: &ArgMatches,
) -> Result<(), Failure> {
    init_logging("warn");
    let (capability, leaf) = find_capability(name, sub);
    let config = Config::from_env()?;
    let store = open_store(db, &config)?;
    let context = business::kernel::context::build_owner_context(&config, &store, Source::Cli)?;
    let store = Arc::new(store);
    let services = Services {
        sender: discord_sender(&config, &store),
        store,
        context,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Error::internal("Cannot start the runtime").with_source(error))?;
    if let Some(out) = leaf.try_get_one::<PathBuf>("out").ok().flatten() {
        // The kept bytes are copied as they are: the file is found, never read or decoded, so
        // an image too large to show (an 8K screenshot) can still be saved.
        let found = registry::kept_attachment(arguments(capability, leaf), &services)?;
        return write_out(found.as_ref(), out);
    }
    let outcome = runtime.block_on(capability.call(arguments(capability, leaf), &services))?;
    let text = if json {
        pretty_json(&outcome.to_json())?
    } else if render::hyperlinks_enabled() {
        render::hyperlinked(&render::terminal_text(&outcome.render()))
    } else {
        render::terminal_text(&outcome.render())
    };
    write_stdout(text.as_bytes())
}

/// `--out FILE`: the result's file copied to a new file, private to the owner (0600), never
/// over an existing one; what was written is said on stdout.
fn write_out(
    outcome: &dyn discord_manager_core::answer::Outcome,
    out: &std::path::Path,
) -> Result<(), Failure> {
    let Some(source) = outcome.file() else {
        return Err(Error::conflict(
            "`--out`: this attachment's file is not kept, so there is nothing to write (its \
             state and reason say why)",
        )
        .into());
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut target = options.open(out).map_err(|error| {
        if error.kind() == std::io::ErrorKind::AlreadyExists {
            Error::conflict(format!(
                "`--out`: {} already exists: give a path that does not, nothing is overwritten",
                out.display()
            ))
        } else {
            Error::config(format!("`--out`: cannot create {}: {error}", out.display()))
        }
    })?;
    let written = std::fs::File::open(source)
        .and_then(|mut file| std::io::copy(&mut file, &mut target))
        .and_then(|written| target.sync_all().map(|()| written));
    match written {
        Ok(bytes) => write_stdout(format!("Wrote {bytes} bytes to {}\n", out.display()).as_bytes()),
        Err(error) => {
            let _ = std::fs::remove_file(out);
            Err(Error::internal(format!(
                "Cannot copy the kept file to {}: {error}",
                out.display()
            ))
            .into())
        }
    }
}

/// JSON as `--json` prints it: indented, with a final line end, safe for a terminal.
fn pretty_json<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    render::terminal_json(value).map_err(|error| {
        Error::internal("Cannot write JSON")
            .with_source(error)
            .into()
    })
}

/// `mcp config <client>`: the client's entry for this binary and `store`, printed or written.
pub(crate) fn print_mcp_config(
    options: &ArgMatches,
    store: &std::path::Path,
) -> Result<(), Failure> {
    use mcp_config::Client;
    let name = options
        .get_one::<String>("client")
        .expect("clap requires a client");
    let client = Client::from_name(name).expect("clap allows only known clients");
    let absolute = |path: &std::path::Path| {
        std::path::absolute(path)
            .map_err(|_| Error::config(format!("{} cannot be made absolute", path.display())))
    };
    let binary = std::env::current_exe()
        .and_then(|path| path.canonicalize())
        .map_err(|_| Error::internal("Cannot tell where this binary is"))?;
    let entry = mcp_config::server_entry(client, &binary, &absolute(store)?);
    let shown = if options.get_flag("write") {
        let path = match options.get_one::<PathBuf>("file") {
            Some(path) => path.clone(),
            None => client.default_path()?,
        };
        let force = options.get_flag("force");
        let (_, replaced) = mcp_config::write(client, &path, entry, force)?;
        let path = absolute(&path)?;
        match replaced {
            mcp_config::Replaced::Same => format!(
                "{} already lists this discord-manager server; nothing was changed.\n",
                path.display()
            ),
            mcp_config::Replaced::Nothing => format!(
                "Wrote the discord-manager server into {} (its other servers are kept); \
                 restart the client to load it.\n",
                path.display()
            ),
            mcp_config::Replaced::Entry(old) => format!(
                "Wrote the discord-manager server into {} (its other servers are kept), \
                 replacing this entry whole:\n{}\nRestart the client to load it.\n",
                path.display(),
                mcp_config::shown_entry(&old)
            ),
        }
    } else {
        let mut text = serde_json::to_string_pretty(&mcp_config::config(client, entry))
            .map_err(|error| Error::internal("Cannot write JSON").with_source(error))?;
        text.push('\n');
        text
    };
    write_stdout(shown.as_bytes())
}

/// The Discord client that sends as the bot, recording Discord's answers in `store`, when a
/// token is configured (without one, every send is refused before it would be needed).
pub(crate) fn discord_sender(
    config: &Config,
    store: &Arc<Store>,
) -> Option<Arc<dyn discord_manager_sender::DiscordSender>> {
    let token = config.token.clone()?;
    Some(Arc::new(discord_manager_discord::sender::LazySender::new(
        token,
        config.api_base.clone(),
        Arc::clone(store),
    )))
}

/// The capability a parsed command names, and the matches holding its options.
fn find_capability<'a>(name: &str, sub: &'a ArgMatches) -> (&'static Capability, &'a ArgMatches) {
    let (path, leaf): (Vec<&str>, &ArgMatches) = match sub.subcommand() {
        Some((child, leaf)) => (vec![name, child], leaf),
        None => (vec![name], sub),
    };
    let capability = registry::capabilities()
        .iter()
        .find(|capability| capability.command == path.as_slice())
        .expect("every command in the tree comes from the registry");
    (capability, leaf)
}

/// The command line an owner types for `arguments`, the inverse of the options' parsing: the
/// positional input bare, every other input as `--kebab-name value`, a switch as its flag. The
/// human-output snapshots show each capability's demo examples as these lines.
pub fn command_line(capability: &Capability, arguments: &Value) -> Vec<String> {
    let mut line: Vec<String> = capability
        .command
        .iter()
        .map(|word| word.to_string())
        .collect();
    let mut options = Vec::new();
    for (field, schema) in properties(capability) {
        let Some(value) = arguments.get(field.as_str()) else {
            continue;
        };
        let text = match value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        if capability.positional == Some(field.as_str()) {
            line.push(text);
        } else if field_type(schema) == "boolean" && !nullable(schema) {
            if value == &Value::Bool(true) {
                options.push(option_flag(field));
            }
        } else {
            options.extend([option_flag(field), text]);
        }
    }
    line.extend(options);
    line
}

/// The option an input is given with on the command line: `--mentions-owner`.
fn option_flag(field: &str) -> String {
    format!("--{}", kebab_case(field))
}

pub(crate) fn write_completions(shell: &str, out: &mut Vec<u8>) {
    let shell = match shell {
        "bash" => clap_complete::Shell::Bash,
        "zsh" => clap_complete::Shell::Zsh,
        _ => clap_complete::Shell::Fish,
    };
    clap_complete::generate(shell, &mut command_tree(), "discord-manager", out);
}

pub(crate) fn store_path(db: Option<PathBuf>, config: &Config) -> Result<PathBuf> {
    match db.or_else(|| config.db_path.clone()) {
        Some(path) => Ok(path),
        None => discord_manager_store::default_path(),
    }
}

pub(crate) fn open_store(db: Option<PathBuf>, config: &Config) -> Result<Store> {
    Store::open_as(&store_path(db, config)?, page_compression(config))
}

/// Whether the store's pages are written compressed (`DISCORD_MANAGER_COMPRESS_STORE`).
pub(crate) fn page_compression(config: &Config) -> PageCompression {
    if config.compress_store {
        PageCompression::On
    } else {
        PageCompression::Off
    }
}

/// Writes to stdout; a reader that went away (`| head`) ends the program quietly.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Err(Failure::ClosedPipe),
        Err(error) => Err(Error::internal("Cannot write to stdout")
            .with_source(error)
            .into()),
    }
}

#[cfg(test)]
mod tests {
    use discord_manager_core::business::kernel::examples::Sample;
    use discord_manager_core::registry;
    use serde_json::json;

    use super::{arguments, command_line, command_tree, find_capability};

    /// Every capability's demo examples, written as command lines and parsed back by the
    /// command tree, are the same arguments: the snapshots' lines are what the CLI runs.
    #[test]
    fn every_demo_example_is_a_command_line_that_parses_back_to_itself() {
        let sample = Sample::of_the_demo();
        let mut checked = 0;
        for capability in registry::capabilities() {
            let examples = capability.examples(&sample);
            for input in examples.demo.iter().chain(examples.on_a_generated_store()) {
                let line = command_line(capability, input);
                let matches = command_tree()
                    .try_get_matches_from(
                        std::iter::once("discord-manager".to_string()).chain(line.clone()),
                    )
                    .unwrap_or_else(|error| panic!("{line:?}: {error}"));
                let (name, sub) = matches.subcommand().expect("a command");
                let (parsed, leaf) = find_capability(name, sub);
                assert_eq!(parsed.name, capability.name, "{line:?}");
                assert_eq!(&arguments(capability, leaf), input, "{line:?}");
                checked += 1;
            }
        }
        assert!(checked > 60, "{checked} lines checked");
        let catch_up = registry::find("messages_catch_up").unwrap();
        assert_eq!(
            command_line(catch_up, &json!({"fromReadMarkers": false, "limit": 3})),
            ["catch-up", "--from-read-markers", "false", "--limit", "3"]
        );
        let history = registry::find("messages_history").unwrap();
        assert_eq!(
            command_line(history, &json!({"channelId": "14", "limit": 5})),
            ["history", "14", "--limit", "5"]
        );
    }
}
