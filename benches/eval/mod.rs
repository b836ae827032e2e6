//! The meaning evaluation set (`benches/eval/meaning.json`), shared by the benchmark that
//! measures search over it (`benches/meaning.rs`) and the test that holds the set to its rules
//! (`tests/meaning_eval_set.rs`, which also runs the words baseline, so this code cannot rot).
//!
//! It owns: the set's shape as read from the file, the store the set becomes (a guild of its
//! channels and authors, each message a MESSAGE_CREATE played through the real recorders by
//! `seed::play_feed`), and recall@10 of a search mode over the set's queries, each query sent
//! to `messages_search` through the registry as the owner typed it. The rules the set obeys
//! (counts, no shared content word between a paraphrase and its target) are the test's.

#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use discord_manager::seed::play_feed;
use discord_manager_core::business::messages::embedding::EmbeddingPass;
use discord_manager_core::business::{OwnerContext, Source};
use discord_manager_core::config::GuildScope;
use discord_manager_core::registry::{self, Services};
use discord_manager_ingest::Origin;
use discord_manager_playback::payload::{Message, User};
use discord_manager_store::{IdentitySource, Store};
use serde::Deserialize;
use serde_json::{Value, json};

/// The set, as the repository holds it.
pub const SET: &str = include_str!("meaning.json");

/// How many results a query's target must be among to count as found.
pub const TOP: usize = 10;

const GUILD_ID: &str = "1200000000000000001";
const BOT_ID: &str = "1100000000000000001";
const TEAM_ROLE_ID: &str = "1300000000000000001";
const BOTS_ROLE_ID: &str = "1300000000000000002";
/// View Channel, Send Messages, Read Message History, Add Reactions.
const MEMBER_PERMISSIONS: &str = "68672";
/// Minutes between two messages of the set, in the order the file lists them.
const MINUTES_APART: usize = 7;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EvalSet {
    /// What the set is and its rules, for a reader of the file.
    pub about: Vec<String>,
    /// The username of the owner among the authors.
    pub owner: String,
    pub channels: Vec<String>,
    pub authors: Vec<Author>,
    pub messages: Vec<EvalMessage>,
    pub queries: Vec<Query>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Author {
    pub username: String,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EvalMessage {
    /// The set's own id (`m001`), which queries name.
    pub id: String,
    /// A channel's name, from `channels`.
    pub channel: String,
    /// An author's username, from `authors`.
    pub author: String,
    pub text: String,
    /// The language it is written in, as an ISO 639-1 code; absent: English.
    #[serde(default)]
    pub language: Option<String>,
}

impl EvalMessage {
    /// Its language's code (`en` when the set names none).
    pub fn language(&self) -> &str {
        self.language.as_deref().unwrap_or("en")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum QueryKind {
    /// Says what its target means in other words: no content word in common.
    Paraphrase,
    /// Asks in another language than its target is written in: the owner's language against
    /// the team's (`language` says which).
    Translated,
    /// Uses words its target contains: what words search finds today.
    Exact,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Query {
    pub id: String,
    pub kind: QueryKind,
    /// The question as the owner asks it.
    pub text: String,
    /// The message it looks for.
    pub target: String,
    /// Other messages that answer it as well; finding one counts as finding the target.
    #[serde(default)]
    pub alternates: Vec<String>,
    /// Messages that share words with the query but not its meaning.
    #[serde(default)]
    pub distractors: Vec<String>,
    /// The language the query is asked in, as an ISO 639-1 code; absent: English.
    #[serde(default)]
    pub language: Option<String>,
}

impl Query {
    /// Its language's code (`en` when the set names none).
    pub fn language(&self) -> &str {
        self.language.as_deref().unwrap_or("en")
    }

    /// The target and its alternates: the messages that answer the query.
    pub fn answers(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.target.as_str()).chain(self.alternates.iter().map(String::as_str))
    }
}

/// Reads the set from the repository's file.
pub fn load() -> Result<EvalSet, String> {
    serde_json::from_str(SET).map_err(|error| format!("benches/eval/meaning.json: {error}"))
}

impl EvalSet {
    /// The message the set calls `id`.
    pub fn message(&self, id: &str) -> Option<&EvalMessage> {
        self.messages.iter().find(|message| message.id == id)
    }

    /// The Discord id each message of the set is stored under, by the set's id.
    pub fn discord_ids(&self) -> HashMap<String, String> {
        self.messages
            .iter()
            .enumerate()
            .map(|(index, message)| (message.id.clone(), message_id(index)))
            .collect()
    }

    fn author_user(&self, username: &str) -> Result<User, String> {
        let index = self
            .authors
            .iter()
            .position(|author| author.username == username)
            .ok_or_else(|| format!("no author {username:?} in the set"))?;
        Ok(User {
            id: user_id(index),
            username: username.to_string(),
            global_name: Some(self.authors[index].name.clone()),
            bot: false,
        })
    }

    fn channel_id(&self, name: &str) -> Result<String, String> {
        self.channels
            .iter()
            .position(|channel| channel == name)
            .map(channel_id)
            .ok_or_else(|| format!("no channel {name:?} in the set"))
    }

    /// The set as a scripted feed (`seed/`'s format): READY, the guild with its channels and
    /// members, then each message as Discord sends it, oldest first, minutes apart.
    pub fn feed(&self) -> Result<String, String> {
        let role = |id: &str, name: &str, permissions: &str| {
            json!({"id": id, "name": name, "color": 0, "hoist": false, "managed": false,
                   "mentionable": true, "permissions": permissions, "position": 1, "flags": 0,
                   "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null}})
        };
        let member = |user: Value, role: &str| {
            json!({"user": user, "roles": [role], "joined_at": "@now-90d", "deaf": false,
                   "mute": false, "flags": 0, "pending": false})
        };
        let bot = User {
            id: BOT_ID.into(),
            username: "keeper".into(),
            global_name: Some("Keeper".into()),
            bot: true,
        };
        let mut members = vec![member(bot.to_json(), BOTS_ROLE_ID)];
        for author in &self.authors {
            members.push(member(
                self.author_user(&author.username)?.to_json(),
                TEAM_ROLE_ID,
            ));
        }
        let channels: Vec<Value> = self
            .channels
            .iter()
            .enumerate()
            .map(|(position, name)| {
                json!({"id": channel_id(position), "guild_id": GUILD_ID, "name": name, "type": 0,
                       "position": position, "permission_overwrites": [], "nsfw": false})
            })
            .collect();
        let owner_id = self.owner_id()?;
        let mut guild = json!({
            "id": GUILD_ID, "name": "Driftwood", "icon": null, "icon_hash": null,
            "splash": null, "discovery_splash": null, "owner_id": owner_id,
            "afk_channel_id": null, "afk_timeout": 300, "verification_level": 1,
            "default_message_notifications": 1, "explicit_content_filter": 0,
            "emojis": [], "features": [], "mfa_level": 0, "application_id": null,
            "system_channel_id": null, "system_channel_flags": 0, "rules_channel_id": null,
            "vanity_url_code": null, "description": null, "banner": null,
            "premium_tier": 0, "preferred_locale": "en-US",
            "public_updates_channel_id": null, "nsfw_level": 0, "stickers": [],
            "premium_progress_bar_enabled": false, "joined_at": "@now-90d",
            "large": false, "voice_states": [], "threads": [], "presences": [],
            "stage_instances": [], "guild_scheduled_events": []
        });
        guild["roles"] = json!([
            role(GUILD_ID, "@everyone", MEMBER_PERMISSIONS),
            role(TEAM_ROLE_ID, "team", MEMBER_PERMISSIONS),
            role(BOTS_ROLE_ID, "bots", MEMBER_PERMISSIONS)
        ]);
        guild["member_count"] = json!(members.len());
        guild["members"] = json!(members);
        guild["channels"] = json!(channels);
        let mut lines = vec![
            json!({"t": "READY", "d": {
                "v": 10, "user": bot.to_json(), "guilds": [{"id": GUILD_ID, "unavailable": true}],
                "session_id": "meaning", "resume_gateway_url": "wss://gateway.discord.invalid",
                "application": {"id": BOT_ID, "flags": 0}, "private_channels": []
            }}),
            json!({"t": "GUILD_CREATE", "d": guild}),
        ];
        let count = self.messages.len();
        for (index, message) in self.messages.iter().enumerate() {
            let id = message_id(index);
            let channel = self.channel_id(&message.channel)?;
            let timestamp = format!("@now-{}m", (count - index) * MINUTES_APART);
            let mut payload = Message {
                id: &id,
                channel_id: &channel,
                guild_id: Some(GUILD_ID),
                author: self.author_user(&message.author)?,
                content: &message.text,
                timestamp: &timestamp,
                ..Message::default()
            }
            .to_json();
            payload["member"] = json!({"roles": [TEAM_ROLE_ID], "joined_at": "@now-90d",
                                       "deaf": false, "mute": false, "flags": 0,
                                       "pending": false});
            lines.push(json!({"t": "MESSAGE_CREATE", "d": payload}));
        }
        let mut feed = String::new();
        for line in lines {
            writeln!(feed, "{line}").map_err(|error| error.to_string())?;
        }
        Ok(feed)
    }

    /// The owner's user id.
    fn owner_id(&self) -> Result<discord_manager_vocabulary::snowflake::UserId, String> {
        let id = self.author_user(&self.owner)?.id;
        id.parse()
            .map_err(|_| format!("the owner's id {id} is not a Discord id"))
    }

    /// The owner's context on the set's store, as the CLI builds it.
    pub fn owner_context(&self) -> Result<OwnerContext, String> {
        Ok(OwnerContext {
            read_only: true,
            ..OwnerContext::with_unset_settings(
                Some(self.owner_id()?),
                GuildScope::every_guild(),
                Source::Cli,
            )
        })
    }

    /// Builds the set's store in a new temporary folder ([`EvalSet::build`]), with a runtime
    /// to call it on: what the benchmark and the tests search.
    pub fn build_in_temporary_folder(&self) -> Result<BuiltSet, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|error| format!("a runtime: {error}"))?;
        let folder = tempfile::tempdir().map_err(|error| format!("a temporary folder: {error}"))?;
        let services = self
            .build(&runtime, &folder.path().join("meaning.sqlite3"))
            .map_err(|error| format!("the set's store: {error}"))?;
        Ok(BuiltSet {
            runtime,
            services,
            _folder: folder,
        })
    }

    /// Builds the set's store at `path` (a new file) through the real recorders, and the
    /// services an in-process call reads it with.
    fn build(&self, runtime: &tokio::runtime::Runtime, path: &Path) -> Result<Services, String> {
        let store = Arc::new(Store::open(path).map_err(|error| error.message().to_string())?);
        let owner_id = self.owner_id()?;
        discord_manager_ingest::guilds::record_application_owner(
            &store,
            &owner_id,
            IdentitySource::Seed,
        )
        .map_err(|error| error.message().to_string())?;
        let summary = runtime
            .block_on(play_feed(&store, &self.feed()?, Origin::Seed))
            .map_err(|error| error.message().to_string())?;
        if summary.stored != self.messages.len() + 2 {
            return Err(format!(
                "the set's feed stored {summary}, not its {} messages, READY and the guild",
                self.messages.len()
            ));
        }
        // Every message embedded, as the ingest daemon's pass does, for search by meaning.
        EmbeddingPass::new()
            .and_then(|mut pass| pass.run_to_end(&store))
            .map_err(|error| error.message().to_string())?;
        Ok(Services {
            store,
            context: self.owner_context()?,
            sender: None,
        })
    }
}

fn message_id(index: usize) -> String {
    format!("15000000000000{:05}", index + 1)
}

fn channel_id(index: usize) -> String {
    format!("14000000000000{:05}", index + 1)
}

fn user_id(index: usize) -> String {
    format!("10000000000000{:05}", index + 1)
}

/// The set's store, built in a temporary folder, and a runtime to call it on.
pub struct BuiltSet {
    pub runtime: tokio::runtime::Runtime,
    pub services: Services,
    /// Removed with the set: the store lives in it.
    _folder: tempfile::TempDir,
}

/// A search mode's recall@10 over one kind of query.
#[derive(Debug, Clone, Default)]
pub struct Recall {
    pub queries: usize,
    pub found: usize,
    /// Queries whose first result answers them.
    pub first: usize,
    /// Queries that name distractors, and those of them where a distractor was ranked above
    /// every answer (an answer not in the top ten ranks below everything in it).
    pub with_distractors: usize,
    pub distracted: Vec<String>,
    /// Queries the search answered with no result at all.
    pub empty: usize,
    /// The queries whose target (or an alternate) was not in the top ten, with what the
    /// search said when it refused the query.
    pub missed: Vec<(String, Option<String>)>,
}

impl Recall {
    /// Found, out of every query, in percent.
    pub fn percent(&self) -> f64 {
        if self.queries == 0 {
            return f64::NAN;
        }
        100.0 * self.found as f64 / self.queries as f64
    }
}

/// Recall@10 of `messages_search` with `arguments` added to each query (`{}` for the search as
/// it is today), over the set's queries of `kind`: each query's text is sent as the owner
/// typed it, through the registry, as both surfaces call it.
pub fn recall(
    set: &EvalSet,
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    kind: QueryKind,
    arguments: &Value,
) -> Result<Recall, String> {
    recall_of(set, runtime, services, arguments, |query| {
        query.kind == kind
    })
}

/// [`recall`] over the set's queries `chosen` admits (one language's, say).
pub fn recall_of(
    set: &EvalSet,
    runtime: &tokio::runtime::Runtime,
    services: &Services,
    arguments: &Value,
    chosen: impl Fn(&Query) -> bool,
) -> Result<Recall, String> {
    let capability =
        registry::find("messages_search").map_err(|error| error.message().to_string())?;
    let discord_ids = set.discord_ids();
    let mut recall = Recall::default();
    for query in set.queries.iter().filter(|query| chosen(query)) {
        recall.queries += 1;
        let mut call = json!({"query": query.text, "limit": TOP});
        if let (Some(call), Some(extra)) = (call.as_object_mut(), arguments.as_object()) {
            call.extend(extra.clone());
        }
        let answer = runtime.block_on(capability.call(call, services));
        let results = match answer {
            Ok(outcome) => outcome.to_json(),
            Err(refusal) => {
                recall
                    .missed
                    .push((query.id.clone(), Some(refusal.message().to_string())));
                continue;
            }
        };
        let wanted: Vec<&str> = query
            .answers()
            .map(|answer| {
                discord_ids
                    .get(answer)
                    .map(String::as_str)
                    .ok_or_else(|| format!("query {} names no message {answer}", query.id))
            })
            .collect::<Result<_, _>>()?;
        let hits = results["results"].as_array().map_or(&[][..], Vec::as_slice);
        if hits.is_empty() {
            recall.empty += 1;
        }
        let ids: Vec<&str> = hits
            .iter()
            .take(TOP)
            .filter_map(|result| result["message"]["messageId"].as_str())
            .collect();
        let answer_at = ids.iter().position(|id| wanted.contains(id));
        let found = answer_at.is_some();
        if answer_at == Some(0) {
            recall.first += 1;
        }
        if !query.distractors.is_empty() {
            recall.with_distractors += 1;
            let distractors: Vec<&str> = query
                .distractors
                .iter()
                .filter_map(|distractor| discord_ids.get(distractor).map(String::as_str))
                .collect();
            let distractor_at = ids.iter().position(|id| distractors.contains(id));
            if distractor_at.is_some_and(|at| answer_at.is_none_or(|answer| at < answer)) {
                recall.distracted.push(query.id.clone());
            }
        }
        if found {
            recall.found += 1;
        } else {
            recall.missed.push((query.id.clone(), None));
        }
    }
    Ok(recall)
}
