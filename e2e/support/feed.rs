//! Builders for scripted gateway feeds: realistic Discord payloads, shaped like those in
//! `seed/demo.jsonl`, with fresh ids so that nothing a spec seeds collides with anything else.
//!
//! A spec describes its guild ([`Guild`]: roles, members, channels, threads), opens a [`Feed`]
//! that joins it (READY and GUILD_CREATE), then posts, edits, deletes and reacts. Every
//! builder returns the values it wrote ([`User`], [`Channel`], [`Posted`], [`Edited`]), and
//! specs assert on those values, never on restated strings.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

use super::time::Stamp;

/// The permission bits the payloads use (Discord's documented values).
const VIEW_CHANNEL: u64 = 1 << 10;
const SEND_MESSAGES: u64 = 1 << 11;
const READ_MESSAGE_HISTORY: u64 = 1 << 16;

/// A fresh snowflake: Discord's layout (milliseconds since 2015 in the high bits), with this
/// process's id and a counter below, so ids are unique in a run and unlikely across runs.
pub fn fresh_id() -> String {
    const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static BASE: LazyLock<u64> = LazyLock::new(|| {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("the clock is after 1970")
            .as_millis() as u64;
        ((now_ms - DISCORD_EPOCH_MS) << 22) | ((u64::from(std::process::id()) & 0x1f) << 17)
    });
    (*BASE + NEXT.fetch_add(1, Ordering::Relaxed)).to_string()
}

/// A Discord user, with the roles they hold in the spec's guild.
#[derive(Debug, Clone)]
pub struct User {
    pub id: String,
    pub username: String,
    /// The display name Discord shows (and the product reports as `authorName`).
    pub global_name: String,
    pub bot: bool,
    pub role_ids: Vec<String>,
}

impl User {
    fn new(username: &str, bot: bool, roles: &[&Role]) -> User {
        let mut global_name = username.to_string();
        if let Some(first) = global_name.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        User {
            id: fresh_id(),
            username: username.to_string(),
            global_name,
            bot,
            role_ids: roles.iter().map(|role| role.id.clone()).collect(),
        }
    }

    /// How a message mentions this user: `<@id>`.
    pub fn mention(&self) -> String {
        format!("<@{}>", self.id)
    }

    fn payload(&self) -> Value {
        json!({
            "id": self.id,
            "username": self.username,
            "discriminator": "0",
            "global_name": self.global_name,
            "avatar": null,
            "bot": self.bot,
        })
    }

    fn member_payload(&self, joined: &str) -> Value {
        json!({
            "roles": self.role_ids,
            "joined_at": joined,
            "deaf": false,
            "mute": false,
            "flags": 0,
            "pending": false,
        })
    }
}

/// A guild role.
#[derive(Debug, Clone)]
pub struct Role {
    pub id: String,
    pub name: String,
    permissions: u64,
}

impl Role {
    /// How a message mentions this role: `<@&id>`.
    pub fn mention(&self) -> String {
        format!("<@&{}>", self.id)
    }

    fn payload(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "color": 0,
            "hoist": false,
            "managed": false,
            "mentionable": true,
            "permissions": self.permissions.to_string(),
            "position": 1,
            "flags": 0,
            "colors": {"primary_color": 0, "secondary_color": null, "tertiary_color": null},
        })
    }
}

/// A channel or thread of the spec's guild.
#[derive(Debug, Clone)]
pub struct Channel {
    pub id: String,
    pub name: String,
    pub guild_id: String,
    pub parent_id: Option<String>,
    /// Discord's channel type: 0 text, 5 announcement, 11 public thread, 15 forum.
    kind: u8,
    overwrites: Vec<Value>,
    /// A forum's tags, or those applied to a forum post: (id, name).
    tags: Vec<(String, String)>,
}

impl Channel {
    /// `thread_owner` and `archived_at` only matter for a thread.
    fn payload(&self, position: usize, thread_owner: &str, archived_at: &str) -> Value {
        let mut payload = json!({
            "id": self.id,
            "guild_id": self.guild_id,
            "name": self.name,
            "type": self.kind,
            "position": position,
            "permission_overwrites": self.overwrites,
            "nsfw": false,
        });
        if let Some(parent) = &self.parent_id {
            payload["parent_id"] = json!(parent);
        }
        if self.kind == 15 {
            let tags: Vec<Value> = self
                .tags
                .iter()
                .map(|(id, name)| {
                    json!({"id": id, "name": name, "moderated": false,
                           "emoji_id": null, "emoji_name": null})
                })
                .collect();
            payload["available_tags"] = json!(tags);
        }
        if self.kind == 11 {
            let applied: Vec<&str> = self.tags.iter().map(|(id, _)| id.as_str()).collect();
            payload["applied_tags"] = json!(applied);
            payload["position"] = json!(0);
            payload["thread_metadata"] = json!({
                "archived": false,
                "auto_archive_duration": 1440,
                "archive_timestamp": archived_at,
                "locked": false,
            });
            payload["owner_id"] = json!(thread_owner);
            payload["member_count"] = json!(2);
            payload["message_count"] = json!(0);
        }
        payload
    }
}

/// The spec's guild: its roles, members, channels and threads, as GUILD_CREATE announces them.
#[derive(Debug, Clone)]
pub struct Guild {
    pub id: String,
    pub name: String,
    /// The bot whose store this is; a member with the `bots` role, which grants nothing.
    pub bot: User,
    roles: Vec<Role>,
    members: Vec<User>,
    channels: Vec<Channel>,
    threads: Vec<Channel>,
}

impl Guild {
    /// A guild whose @everyone role may view, send and read history, with the bot in it.
    pub fn new(name: &str) -> Guild {
        let id = fresh_id();
        let everyone = Role {
            // The @everyone role has the guild's id.
            id: id.clone(),
            name: "@everyone".to_string(),
            permissions: VIEW_CHANNEL | SEND_MESSAGES | READ_MESSAGE_HISTORY,
        };
        let bots = Role {
            id: fresh_id(),
            name: "bots".to_string(),
            permissions: 0,
        };
        let bot = User::new("keeper", true, &[&bots]);
        Guild {
            id,
            name: name.to_string(),
            members: vec![bot.clone()],
            bot,
            roles: vec![everyone, bots],
            channels: Vec::new(),
            threads: Vec::new(),
        }
    }

    /// Another guild the same bot is in.
    pub fn alongside(other: &Guild, name: &str) -> Guild {
        let mut guild = Guild::new(name);
        let bots = guild.roles[1].clone();
        guild.bot = User {
            role_ids: vec![bots.id],
            ..other.bot.clone()
        };
        guild.members = vec![guild.bot.clone()];
        guild
    }

    /// A role that grants no permissions of its own.
    pub fn role(&mut self, name: &str) -> Role {
        let role = Role {
            id: fresh_id(),
            name: name.to_string(),
            permissions: 0,
        };
        self.roles.push(role.clone());
        role
    }

    /// A human member holding `roles`.
    pub fn member(&mut self, username: &str, roles: &[&Role]) -> User {
        let user = User::new(username, false, roles);
        self.members.push(user.clone());
        user
    }

    /// A member of another of the spec's guilds joins this one too, holding `roles` here.
    pub fn join(&mut self, user: &User, roles: &[&Role]) -> User {
        let user = User {
            role_ids: roles.iter().map(|role| role.id.clone()).collect(),
            ..user.clone()
        };
        self.members.push(user.clone());
        user
    }

    fn channel(&mut self, name: &str, kind: u8, overwrites: Vec<Value>) -> Channel {
        let channel = Channel {
            id: fresh_id(),
            name: name.to_string(),
            guild_id: self.id.clone(),
            parent_id: None,
            kind,
            overwrites,
            tags: Vec::new(),
        };
        self.channels.push(channel.clone());
        channel
    }

    fn overwrite(role_id: &str, allow: u64, deny: u64) -> Value {
        json!({"id": role_id, "type": 0, "allow": allow.to_string(), "deny": deny.to_string()})
    }

    /// A text channel everyone, the bot included, can read.
    pub fn text_channel(&mut self, name: &str) -> Channel {
        self.channel(name, 0, Vec::new())
    }

    /// An announcement channel everyone can read.
    pub fn announcement_channel(&mut self, name: &str) -> Channel {
        self.channel(name, 5, Vec::new())
    }

    /// A channel only `role` may view: @everyone is denied View Channel, and the bot does not
    /// hold `role`.
    pub fn channel_hidden_from_the_bot(&mut self, name: &str, role: &Role) -> Channel {
        let overwrites = vec![
            Self::overwrite(&self.id, 0, VIEW_CHANNEL),
            Self::overwrite(&role.id, VIEW_CHANNEL, 0),
        ];
        self.channel(name, 0, overwrites)
    }

    /// A channel whose history @everyone, the bot included, is denied.
    pub fn channel_without_history(&mut self, name: &str) -> Channel {
        let overwrites = vec![Self::overwrite(&self.id, 0, READ_MESSAGE_HISTORY)];
        self.channel(name, 0, overwrites)
    }

    /// An active public thread under `parent`.
    pub fn thread(&mut self, parent: &Channel, name: &str) -> Channel {
        let thread = Channel {
            id: fresh_id(),
            name: name.to_string(),
            guild_id: self.id.clone(),
            parent_id: Some(parent.id.clone()),
            kind: 11,
            overwrites: Vec::new(),
            tags: Vec::new(),
        };
        self.threads.push(thread.clone());
        thread
    }

    /// A forum everyone can read, offering `tags` to its posts.
    pub fn forum(&mut self, name: &str, tags: &[&str]) -> Channel {
        let forum = self.channel(name, 15, Vec::new());
        let tags = tags
            .iter()
            .map(|tag| (fresh_id(), tag.to_string()))
            .collect();
        let forum = Channel { tags, ..forum };
        *self.channels.last_mut().expect("the forum just added") = forum.clone();
        forum
    }

    /// An open post in `forum` titled `title`, with those of the forum's tags named in `tags`.
    pub fn forum_post(&mut self, forum: &Channel, title: &str, tags: &[&str]) -> Channel {
        let post = self.thread(forum, title);
        let applied = forum
            .tags
            .iter()
            .filter(|(_, name)| tags.contains(&name.as_str()))
            .cloned()
            .collect();
        let post = Channel {
            tags: applied,
            ..post
        };
        *self.threads.last_mut().expect("the post just added") = post.clone();
        post
    }
}

/// A custom or Unicode emoji, for reactions.
#[derive(Debug, Clone)]
pub struct Emoji {
    id: Option<String>,
    name: String,
}

impl Emoji {
    pub fn unicode(text: &str) -> Emoji {
        Emoji {
            id: None,
            name: text.to_string(),
        }
    }

    /// A guild's custom emoji, with a fresh id.
    pub fn custom(name: &str) -> Emoji {
        Emoji {
            id: Some(fresh_id()),
            name: name.to_string(),
        }
    }

    /// How Discord writes it in a message: the character itself, or `<:name:id>`.
    pub fn in_message_syntax(&self) -> String {
        match &self.id {
            None => self.name.clone(),
            Some(id) => format!("<:{}:{id}>", self.name),
        }
    }

    fn payload(&self) -> Value {
        match &self.id {
            None => json!({"id": null, "name": self.name}),
            Some(id) => json!({"id": id, "name": self.name, "animated": false}),
        }
    }
}

/// A message about to be posted: where, by whom, what it says and whom it mentions.
#[derive(Debug, Clone)]
pub struct Post {
    channel: Channel,
    author: User,
    content: String,
    mentions: Vec<User>,
    mention_roles: Vec<String>,
    mention_everyone: bool,
    reply_to: Option<Posted>,
    sent_minutes_ago: Option<i128>,
    /// Fields of Discord's message object set over the defaults (`embeds`, `attachments`...).
    fields: Vec<(String, Value)>,
}

impl Post {
    pub fn new(channel: &Channel, author: &User, content: impl Into<String>) -> Post {
        Post {
            channel: channel.clone(),
            author: author.clone(),
            content: content.into(),
            mentions: Vec::new(),
            mention_roles: Vec::new(),
            mention_everyone: false,
            reply_to: None,
            sent_minutes_ago: None,
            fields: Vec::new(),
        }
    }

    /// Sets a field of Discord's message object, as Discord would send it: `embeds`,
    /// `attachments`, `poll`, `sticker_items`, `webhook_id`...
    pub fn with(mut self, field: &str, value: Value) -> Post {
        self.fields.push((field.to_string(), value));
        self
    }

    /// Sent this long before the feed was opened (late history, as a backfill delivers it).
    /// Default: a minute after the feed's previous post, starting an hour before it opened.
    pub fn sent_minutes_ago(mut self, minutes: i128) -> Post {
        self.sent_minutes_ago = Some(minutes);
        self
    }

    /// Discord lists `user` in the message's `mentions` (write `user.mention()` in the text).
    pub fn mentioning(mut self, user: &User) -> Post {
        self.mentions.push(user.clone());
        self
    }

    /// Discord lists `role` in `mention_roles` (write `role.mention()` in the text).
    pub fn mentioning_role(mut self, role: &Role) -> Post {
        self.mention_roles.push(role.id.clone());
        self
    }

    /// `mention_everyone`: the text says @everyone or @here.
    pub fn mentioning_everyone(mut self) -> Post {
        self.mention_everyone = true;
        self
    }

    /// An inline reply, carrying the replied-to message as Discord does.
    pub fn replying_to(mut self, message: &Posted) -> Post {
        self.reply_to = Some(message.clone());
        self
    }
}

/// A message the feed posted: the values a spec asserts on.
#[derive(Debug, Clone)]
pub struct Posted {
    pub id: String,
    pub channel_id: String,
    pub guild_id: String,
    pub author: User,
    pub content: String,
    /// Discord's timestamp, as the product reports it (`sentAt`).
    pub sent_at: String,
    payload: Value,
}

/// An edit the feed played.
#[derive(Debug, Clone)]
pub struct Edited {
    pub content: String,
    /// Discord's edit timestamp, as the product reports it (`editedAt`).
    pub edited_at: String,
}

/// A scripted feed: JSON Lines of gateway dispatches and owner actions, in order.
#[derive(Debug, Clone)]
pub struct Feed {
    lines: Vec<Value>,
    /// Lines the store is expected to ignore (updates that are not edits).
    pub(super) expected_ignored: usize,
    /// The instant relative timestamps hang from, read once when the feed is opened.
    anchor: Stamp,
    posts: i128,
}

impl Default for Feed {
    fn default() -> Self {
        Feed::new()
    }
}

impl Feed {
    /// An empty feed: more events for a store that already knows the guild.
    pub fn new() -> Feed {
        Feed {
            lines: Vec::new(),
            expected_ignored: 0,
            anchor: Stamp::now(),
            posts: 0,
        }
    }

    /// A feed that starts as a gateway session does: READY, then GUILD_CREATE for `guild`.
    pub fn joining(guild: &Guild) -> Feed {
        let mut feed = Feed::new();
        feed.dispatch(
            "READY",
            json!({
                "v": 10,
                "user": guild.bot.payload(),
                "guilds": [{"id": guild.id, "unavailable": true}],
                "session_id": format!("e2e-{}", fresh_id()),
                "resume_gateway_url": "wss://gateway.discord.invalid",
                "application": {"id": guild.bot.id, "flags": 0},
                "private_channels": [],
            }),
        );
        feed.guild_create(guild);
        feed
    }

    /// GUILD_CREATE: the guild with its roles, members, channels and active threads.
    pub fn guild_create(&mut self, guild: &Guild) {
        let joined = self.anchor.minus_minutes(30 * 24 * 60).wire();
        let members: Vec<Value> = guild
            .members
            .iter()
            .map(|member| {
                let mut payload = member.member_payload(&joined);
                payload["user"] = member.payload();
                payload
            })
            .collect();
        // Discord names the guild's owner; the first human member plays that part.
        let owner_id = guild
            .members
            .iter()
            .find(|member| !member.bot)
            .unwrap_or(&guild.bot)
            .id
            .clone();
        let archived = self.anchor.minus_minutes(60).wire();
        let channels: Vec<Value> = guild
            .channels
            .iter()
            .enumerate()
            .map(|(position, channel)| channel.payload(position, &owner_id, &archived))
            .collect();
        let threads: Vec<Value> = guild
            .threads
            .iter()
            .map(|thread| thread.payload(0, &owner_id, &archived))
            .collect();
        self.dispatch(
            "GUILD_CREATE",
            json!({
                "id": guild.id,
                "name": guild.name,
                "icon": null, "icon_hash": null, "splash": null, "discovery_splash": null,
                "owner_id": owner_id,
                "afk_channel_id": null, "afk_timeout": 300,
                "verification_level": 1, "default_message_notifications": 1,
                "explicit_content_filter": 0,
                "roles": guild.roles.iter().map(Role::payload).collect::<Vec<_>>(),
                "emojis": [], "features": [], "mfa_level": 0, "application_id": null,
                "system_channel_id": guild.channels.first().map(|channel| channel.id.clone()),
                "system_channel_flags": 0, "rules_channel_id": null, "vanity_url_code": null,
                "description": null, "banner": null, "premium_tier": 0,
                "preferred_locale": "en-US", "public_updates_channel_id": null,
                "nsfw_level": 0, "stickers": [], "premium_progress_bar_enabled": false,
                "joined_at": joined,
                "large": false,
                "member_count": guild.members.len(),
                "voice_states": [],
                "members": members,
                "channels": channels,
                "threads": threads,
                "presences": [], "stage_instances": [], "guild_scheduled_events": [],
            }),
        );
    }

    /// CHANNEL_UPDATE: @everyone, and so the bot, is now denied View Channel in `channel`.
    pub fn hide_from_the_bot(&mut self, channel: &Channel) {
        let hidden = Channel {
            overwrites: vec![Guild::overwrite(&channel.guild_id, 0, VIEW_CHANNEL)],
            ..channel.clone()
        };
        self.dispatch("CHANNEL_UPDATE", hidden.payload(0, "", ""));
    }

    /// An instant before anything in this feed arrives in a store: the wall clock when the
    /// feed was opened (the arrival clock never runs behind the wall clock).
    pub fn opened_at(&self) -> String {
        self.anchor.iso()
    }

    fn dispatch(&mut self, kind: &str, data: Value) {
        self.lines.push(json!({"t": kind, "d": data}));
    }

    /// MESSAGE_CREATE.
    pub fn post(&mut self, post: Post) -> Posted {
        self.posts += 1;
        let sent_at = self
            .anchor
            .minus_minutes(post.sent_minutes_ago.unwrap_or(60 - self.posts));
        let id = fresh_id();
        let mut payload = json!({
            "id": id,
            "channel_id": post.channel.id,
            "guild_id": post.channel.guild_id,
            "author": post.author.payload(),
            "member": post.author.member_payload(&sent_at.minus_minutes(60 * 24).wire()),
            "content": post.content,
            "timestamp": sent_at.wire(),
            "edited_timestamp": null,
            "tts": false,
            "mention_everyone": post.mention_everyone,
            "mentions": post.mentions.iter().map(User::payload).collect::<Vec<_>>(),
            "mention_roles": post.mention_roles,
            "attachments": [],
            "embeds": [],
            "pinned": false,
            "type": 0,
            "flags": 0,
        });
        for (field, value) in &post.fields {
            payload[field.as_str()] = value.clone();
        }
        let plain = payload.clone();
        if let Some(target) = &post.reply_to {
            payload["type"] = json!(19);
            payload["message_reference"] = json!({
                "message_id": target.id,
                "channel_id": target.channel_id,
                "guild_id": target.guild_id,
            });
            let mut referenced = target.payload.clone();
            if let Some(fields) = referenced.as_object_mut() {
                fields.remove("member");
            }
            payload["referenced_message"] = referenced;
        }
        self.dispatch("MESSAGE_CREATE", payload);
        Posted {
            id,
            channel_id: post.channel.id,
            guild_id: post.channel.guild_id,
            author: post.author,
            content: post.content,
            sent_at: sent_at.iso(),
            payload: plain,
        }
    }

    /// The same dispatch once more, as the gateway replays events after a RESUME.
    pub fn replay_last(&mut self) {
        let last = self.lines.last().cloned().expect("a dispatch to replay");
        self.lines.push(last);
    }

    /// MESSAGE_UPDATE with new content, edited `minutes_after` the message was sent.
    pub fn edit(&mut self, message: &Posted, content: &str, minutes_after: i128) -> Edited {
        let edited_at = Stamp::parse(&message.sent_at).plus_minutes(minutes_after);
        self.dispatch(
            "MESSAGE_UPDATE",
            json!({
                "id": message.id,
                "channel_id": message.channel_id,
                "guild_id": message.guild_id,
                "content": content,
                "edited_timestamp": edited_at.wire(),
                "mentions": [],
                "mention_roles": [],
            }),
        );
        Edited {
            content: content.to_string(),
            edited_at: edited_at.iso(),
        }
    }

    /// MESSAGE_UPDATE without an edit: Discord adding a link preview (embeds only). The store
    /// keeps the embed; the content is not edited.
    pub fn unfurl(&mut self, message: &Posted) {
        self.dispatch(
            "MESSAGE_UPDATE",
            json!({
                "id": message.id,
                "channel_id": message.channel_id,
                "guild_id": message.guild_id,
                "embeds": [{"type": "link", "url": "https://example.invalid/", "title": "Example"}],
            }),
        );
    }

    /// MESSAGE_DELETE_BULK: a moderator purging messages.
    pub fn delete_bulk(&mut self, messages: &[&Posted]) {
        let first = messages.first().expect("messages to delete");
        self.dispatch(
            "MESSAGE_DELETE_BULK",
            json!({
                "ids": messages.iter().map(|message| message.id.clone()).collect::<Vec<_>>(),
                "channel_id": first.channel_id,
                "guild_id": first.guild_id,
            }),
        );
    }

    /// MESSAGE_DELETE.
    pub fn delete(&mut self, message: &Posted) {
        self.dispatch(
            "MESSAGE_DELETE",
            json!({"id": message.id, "channel_id": message.channel_id, "guild_id": message.guild_id}),
        );
    }

    fn reaction(&mut self, kind: &str, message: &Posted, user: &User, emoji: &Emoji) {
        self.dispatch(
            kind,
            json!({
                "user_id": user.id,
                "channel_id": message.channel_id,
                "message_id": message.id,
                "guild_id": message.guild_id,
                "emoji": emoji.payload(),
                "burst": false,
                "type": 0,
            }),
        );
    }

    /// MESSAGE_REACTION_ADD.
    pub fn react(&mut self, message: &Posted, user: &User, emoji: &Emoji) {
        self.reaction("MESSAGE_REACTION_ADD", message, user, emoji);
    }

    /// MESSAGE_REACTION_REMOVE.
    pub fn unreact(&mut self, message: &Posted, user: &User, emoji: &Emoji) {
        self.reaction("MESSAGE_REACTION_REMOVE", message, user, emoji);
    }

    /// MESSAGE_REACTION_REMOVE_EMOJI: every reaction with `emoji` removed at once.
    pub fn clear_emoji(&mut self, message: &Posted, emoji: &Emoji) {
        self.dispatch(
            "MESSAGE_REACTION_REMOVE_EMOJI",
            json!({
                "channel_id": message.channel_id,
                "guild_id": message.guild_id,
                "message_id": message.id,
                "emoji": emoji.payload(),
            }),
        );
    }

    /// An owner action played through a capability, as `seed/demo.jsonl` does.
    pub fn action(&mut self, tool: &str, arguments: Value) {
        self.lines
            .push(json!({"tool": tool, "arguments": arguments}));
    }

    /// The feed as JSON Lines, the format `discord_manager::seed::play_feed` reads.
    pub fn to_jsonl(&self) -> String {
        let mut text = String::new();
        for line in &self.lines {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        text
    }
}
