//! What Discord says about the bot, for `setup` and `doctor`: whose bot it is, which privileged
//! intents its application may use, the guilds it is in, and per guild the channels it cannot
//! read and why; with the invite URL asking for exactly the permissions the product uses.
//!
//! Readability is computed as the daemon computes it (`permissions`), but from REST
//! (the guild's channels and roles, the bot's roles) rather than from the store, so it is what
//! Discord says now, before the daemon has ever run.

use discord_manager_vocabulary::snowflake;
use std::time::Duration;

use discord_manager_core::business::channels::unreadable_reason;
use discord_manager_core::business::kernel::untrusted::scrub;
use discord_manager_core::config::Token;
use discord_manager_ingest::channels::overwrites_of;
use discord_manager_ingest::ids::TypedId;
use discord_manager_store::{GuildRecord, RolePermissions};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::permissions::channel_access;
use serenity::model::channel::ChannelType;
use serenity::model::id::{GuildId, UserId};
use serenity::model::permissions::Permissions;

use super::rest::{ApplicationInfo, GuildSummary, Rest, RestError, RetryPolicy};

/// A permission the bot is invited with, and what the product does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BotPermission {
    pub bits: u64,
    /// Its name in Discord's invite screen.
    pub name: &'static str,
    pub why: &'static str,
}

/// Exactly the permissions the product uses, in the order Discord's invite screen shows them.
pub const BOT_PERMISSIONS: &[BotPermission] = &[
    BotPermission {
        bits: Permissions::VIEW_CHANNEL.bits(),
        name: "View Channels",
        why: "see the channels and receive their messages as they are posted",
    },
    BotPermission {
        bits: Permissions::MANAGE_THREADS.bits(),
        name: "Manage Threads",
        why: "list private threads, archived ones too, so none is missed (the bot never \
              changes a thread; without it only the private threads it was added to are read)",
    },
    BotPermission {
        bits: Permissions::SEND_MESSAGES.bits(),
        name: "Send Messages",
        why: "post what you send or schedule as the bot",
    },
    BotPermission {
        bits: Permissions::SEND_MESSAGES_IN_THREADS.bits(),
        name: "Send Messages in Threads",
        why: "post in threads",
    },
    BotPermission {
        bits: Permissions::READ_MESSAGE_HISTORY.bits(),
        name: "Read Message History",
        why: "backfill what was posted while the daemon was not running",
    },
    BotPermission {
        bits: Permissions::ADD_REACTIONS.bits(),
        name: "Add Reactions",
        why: "react as the bot (`reactions add`) with an emoji nobody has used on the message yet",
    },
];

/// The bits of [`BOT_PERMISSIONS`] together.
pub fn bot_permission_bits() -> u64 {
    BOT_PERMISSIONS
        .iter()
        .fold(0, |bits, permission| bits | permission.bits)
}

/// The URL that invites the bot into a guild with exactly [`BOT_PERMISSIONS`].
pub fn invite_url(application_id: &snowflake::ApplicationId) -> String {
    format!(
        "https://discord.com/oauth2/authorize?client_id={application_id}&scope=bot&permissions={}",
        bot_permission_bits()
    )
}

/// The Developer Portal page of the bot, where its privileged intents are switched on.
pub fn bot_settings_url(application_id: &snowflake::ApplicationId) -> String {
    format!("https://discord.com/developers/applications/{application_id}/bot")
}

/// A privileged gateway intent: whether the product needs it and whether the application has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrivilegedIntent {
    /// Its name in the Developer Portal (Bot → Privileged Gateway Intents).
    pub name: &'static str,
    pub needed: bool,
    pub why: &'static str,
    pub enabled: bool,
}

/// The privileged intents, read from the application's flags: each is on when either its flag
/// (a verified bot in 100 guilds or more) or its `_LIMITED` flag (any other bot) is set.
pub fn privileged_intents(flags: u64) -> [PrivilegedIntent; 3] {
    let on = |full: u32, limited: u32| flags & ((1 << full) | (1 << limited)) != 0;
    [
        PrivilegedIntent {
            name: "Message Content Intent",
            needed: true,
            why: "without it every message reaches the bot without its text",
            enabled: on(18, 19),
        },
        PrivilegedIntent {
            name: "Server Members Intent",
            needed: false,
            why: "not used: the daemon never asks for the member list",
            enabled: on(14, 15),
        },
        PrivilegedIntent {
            name: "Presence Intent",
            needed: false,
            why: "not used: the daemon never asks for presences",
            enabled: on(12, 13),
        },
    ]
}

/// The REST client for a command someone waits on: a couple of quick attempts, not the
/// daemon's patience.
pub fn rest_for_a_check(token: &Token, api_base: Option<&str>) -> Result<Rest> {
    Rest::new(
        token,
        api_base,
        RetryPolicy {
            attempts: 2,
            first_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(1),
            rate_limited_attempts: 2,
            longest_rate_limit_wait: Duration::from_secs(5),
            timeout: Duration::from_secs(10),
        },
    )
}

/// Whose bot the token is, its application and the guilds it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotProfile {
    pub user_id: snowflake::UserId,
    pub user_name: String,
    pub application: ApplicationInfo,
    pub guilds: Vec<GuildSummary>,
}

/// Asks Discord who the token's bot is (`/users/@me`: a 401 is a rejected token), its
/// application and its guilds.
pub async fn bot_profile(rest: &Rest) -> Result<BotProfile, RestError> {
    let user = rest.current_user().await?;
    let application = rest.application().await?;
    // Names are written by people: shown without invisible or direction-changing characters.
    let guilds = rest
        .guilds()
        .await?
        .into_iter()
        .map(|guild| GuildSummary {
            name: scrub(&guild.name).into_owned(),
            id: guild.id,
        })
        .collect();
    Ok(BotProfile {
        user_id: user.id.typed(),
        user_name: scrub(&user.name).into_owned(),
        application: ApplicationInfo {
            name: scrub(&application.name).into_owned(),
            ..application
        },
        guilds,
    })
}

/// A channel the bot cannot read, and why, in the owner's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableChannel {
    pub id: snowflake::ChannelId,
    pub name: String,
    pub reason: &'static str,
}

/// A guild's channels as the bot may read them: how many there are (categories aside) and
/// those it cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuildReadability {
    pub channels: usize,
    pub unreadable: Vec<UnreadableChannel>,
}

/// Which of a guild's channels the bot cannot read, from its roles and each channel's
/// overwrites as Discord gives them now.
pub async fn guild_readability(
    rest: &Rest,
    guild_id: &snowflake::GuildId,
    bot_user_id: &snowflake::UserId,
) -> Result<GuildReadability, RestError> {
    let guild = GuildId::new(guild_id.get());
    let bot = UserId::new(bot_user_id.get());
    let roles = rest.guild_roles(guild).await?;
    let bot_role_ids = rest.member_roles(guild, bot).await?;
    let record = GuildRecord {
        guild_id: *guild_id,
        name: String::new(),
        roles: roles
            .into_iter()
            .map(|role| RolePermissions {
                id: role.id,
                permissions: role.permissions,
                name: String::new(),
            })
            .collect(),
        bot_role_ids,
        removed: false,
    };
    let mut channels = rest.guild_channels(guild).await?;
    channels.retain(|channel| channel.kind != ChannelType::Category);
    channels.sort_by_key(|channel| (channel.position, channel.id));
    let unreadable = channels
        .iter()
        .filter_map(|channel| {
            let access = channel_access(Some(&record), &overwrites_of(channel), Some(bot_user_id));
            unreadable_reason(access).map(|reason| UnreadableChannel {
                id: channel.id.typed(),
                name: scrub(&channel.name).into_owned(),
                reason,
            })
        })
        .collect();
    Ok(GuildReadability {
        channels: channels.len(),
        unreadable,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_invite_asks_for_exactly_the_permissions_the_product_uses() {
        // Add Reactions 1<<6, View Channels 1<<10, Send Messages 1<<11, Read Message History
        // 1<<16, Manage Threads 1<<34, Send Messages in Threads 1<<38.
        assert_eq!(
            bot_permission_bits(),
            (1 << 6) | (1 << 10) | (1 << 11) | (1 << 16) | (1 << 34) | (1 << 38)
        );
        assert_eq!(
            invite_url(&"1100000000000000001".parse().unwrap()),
            "https://discord.com/oauth2/authorize?client_id=1100000000000000001&scope=bot&permissions=292057844800"
        );
    }

    #[test]
    fn an_intent_is_on_with_either_its_flag_or_its_limited_flag() {
        let message_content = |flags| privileged_intents(flags)[0].enabled;
        assert!(!message_content(0));
        assert!(message_content(1 << 18));
        assert!(message_content(1 << 19));
        // Its neighbours are other intents, not this one.
        assert!(!message_content(
            (1 << 17) | (1 << 20) | (1 << 14) | (1 << 12)
        ));
        let [_, members, presence] = privileged_intents((1 << 15) | (1 << 12));
        assert!(members.enabled && presence.enabled);
        let [_, members, presence] = privileged_intents(1 << 18);
        assert!(!members.enabled && !presence.enabled);
    }
}
