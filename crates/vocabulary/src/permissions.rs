//! What the bot may do in a channel — read it, send in it — from the guild's roles, the bot's
//! roles and the channel's overwrites, following Discord's documented order of application.
//!
//! VIEW_CHANNEL is checked explicitly before anything else: Discord grants nothing in a channel
//! the bot cannot view (serenity's own computation, which this replaces, does not clear the
//! other bits when VIEW_CHANNEL is denied).
//!
//! The arithmetic is Discord's documented bit set over a guild's roles and a channel's
//! overwrites, so it needs no Discord client and no store: the guild is read through
//! [`GuildRoles`] (the store's record of a guild implements it), and an [`Overwrite`] is
//! Discord's own permission overwrite object. The recorders use it when a channel is seen,
//! the business layer before a post.

use std::ops::{BitOr, BitOrAssign};

use serde::{Deserialize, Serialize};

use crate::snowflake::{DiscordId, GuildId, RoleId, UserId};
use crate::words::word_enum;

/// A guild's roles as the arithmetic reads them: whatever keeps a guild says which bits each
/// role grants and which roles the bot has.
pub trait GuildRoles {
    /// The guild's id, which is also the id of its @everyone role.
    fn guild_id(&self) -> &GuildId;
    /// The permission bits role `id` grants guild-wide; none for a role the guild lacks.
    fn role_bits(&self, id: &RoleId) -> u64;
    /// The roles the bot has in the guild.
    fn bot_role_ids(&self) -> &[RoleId];
}

/// A channel permission overwrite, for a role or for one member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overwrite {
    /// A role's id or a member's, as `kind` says.
    pub id: DiscordId,
    pub kind: OverwriteKind,
    pub allow: u64,
    pub deny: u64,
}

word_enum! {
    /// Whom an overwrite is for.
    pub enum OverwriteKind {
        Role = "role",
        Member = "member",
        /// A kind this version does not know: it applies to no one.
        Other = "other",
    }
}

word_enum! {
    /// Whether the bot can read a channel, and if not, what it lacks.
    pub enum ChannelAccess {
        Readable = "readable",
        NoView = "no_view",
        NoHistory = "no_history",
    }
}

/// A set of Discord permission bits, as Discord documents them
/// (<https://discord.com/developers/docs/topics/permissions>).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Permissions(u64);

impl Permissions {
    pub const ADMINISTRATOR: Permissions = Permissions(1 << 3);
    pub const VIEW_CHANNEL: Permissions = Permissions(1 << 10);
    pub const SEND_MESSAGES: Permissions = Permissions(1 << 11);
    pub const READ_MESSAGE_HISTORY: Permissions = Permissions(1 << 16);
    pub const SEND_MESSAGES_IN_THREADS: Permissions = Permissions(1 << 38);
    /// Every bit: what an administrator has.
    pub const ALL: Permissions = Permissions(u64::MAX);

    pub const fn from_bits(bits: u64) -> Permissions {
        Permissions(bits)
    }

    pub const fn bits(self) -> u64 {
        self.0
    }

    /// Whether every bit of `other` is set here.
    pub const fn contains(self, other: Permissions) -> bool {
        self.0 & other.0 == other.0
    }

    /// These bits with an overwrite applied: its denials cleared, then its allowances set,
    /// which is the order Discord applies them in.
    fn overwritten(self, allow: u64, deny: u64) -> Permissions {
        Permissions((self.0 & !deny) | allow)
    }
}

impl BitOr for Permissions {
    type Output = Permissions;
    fn bitor(self, other: Permissions) -> Permissions {
        Permissions(self.0 | other.0)
    }
}

impl BitOrAssign for Permissions {
    fn bitor_assign(&mut self, other: Permissions) {
        self.0 |= other.0;
    }
}

/// The bot's permissions in a channel with these overwrites.
fn effective(
    guild: &impl GuildRoles,
    overwrites: &[Overwrite],
    bot_user_id: Option<&UserId>,
) -> Permissions {
    let everyone = RoleId::everyone_of(guild.guild_id());
    let mut bits = guild.role_bits(&everyone);
    for role in guild.bot_role_ids() {
        bits |= guild.role_bits(role);
    }
    let mut permissions = Permissions::from_bits(bits);
    if permissions.contains(Permissions::ADMINISTRATOR) {
        return Permissions::ALL;
    }
    let mut apply = |allow: u64, deny: u64| permissions = permissions.overwritten(allow, deny);
    if let Some(everyone) = overwrites
        .iter()
        .find(|o| o.kind == OverwriteKind::Role && o.id.get() == everyone.get())
    {
        apply(everyone.allow, everyone.deny);
    }
    let (mut allow, mut deny) = (0, 0);
    for overwrite in overwrites.iter().filter(|o| {
        o.kind == OverwriteKind::Role
            && guild
                .bot_role_ids()
                .iter()
                .any(|role| role.get() == o.id.get())
    }) {
        allow |= overwrite.allow;
        deny |= overwrite.deny;
    }
    apply(allow, deny);
    if let Some(member) = overwrites.iter().find(|o| {
        o.kind == OverwriteKind::Member && bot_user_id.is_some_and(|bot| bot.get() == o.id.get())
    }) {
        apply(member.allow, member.deny);
    }
    permissions
}

/// Whether the bot can read a channel with these overwrites.
pub fn channel_access(
    guild: Option<&impl GuildRoles>,
    overwrites: &[Overwrite],
    bot_user_id: Option<&UserId>,
) -> ChannelAccess {
    // Without the guild we cannot compute anything; the bot was sent the channel, so it is
    // at least visible to it.
    let Some(guild) = guild else {
        return ChannelAccess::Readable;
    };
    let permissions = effective(guild, overwrites, bot_user_id);
    if !permissions.contains(Permissions::VIEW_CHANNEL) {
        ChannelAccess::NoView
    } else if !permissions.contains(Permissions::READ_MESSAGE_HISTORY) {
        ChannelAccess::NoHistory
    } else {
        ChannelAccess::Readable
    }
}

/// Whether the bot may post in a channel, and if not, what it lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendAccess {
    Allowed,
    /// View Channel is denied: nothing else counts.
    NoView,
    /// Send Messages is denied (a channel).
    NoSend,
    /// Send Messages in Threads is denied (a thread).
    NoSendInThreads,
}

/// Whether the bot may post in a channel, or in a thread of it (`thread`: the overwrites are
/// the parent channel's, which is what a thread's permissions come from).
pub fn send_access(
    guild: Option<&impl GuildRoles>,
    overwrites: &[Overwrite],
    bot_user_id: Option<&UserId>,
    thread: bool,
) -> SendAccess {
    // A direct message, or a guild the store has not seen: Discord will decide.
    let Some(guild) = guild else {
        return SendAccess::Allowed;
    };
    let permissions = effective(guild, overwrites, bot_user_id);
    if !permissions.contains(Permissions::VIEW_CHANNEL) {
        SendAccess::NoView
    } else if thread && !permissions.contains(Permissions::SEND_MESSAGES_IN_THREADS) {
        SendAccess::NoSendInThreads
    } else if !thread && !permissions.contains(Permissions::SEND_MESSAGES) {
        SendAccess::NoSend
    } else {
        SendAccess::Allowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Written out as Discord documents them, not through the constants under test.
    const VIEW: u64 = 1 << 10;
    const HISTORY: u64 = 1 << 16;
    const SEND: u64 = 1 << 11;
    const SEND_IN_THREADS: u64 = 1 << 38;

    /// Guild 1: its @everyone role (id 1) and the bot's one role (id 2).
    struct Guild {
        everyone: u64,
        bot_role: u64,
        guild_id: GuildId,
        bot_role_ids: Vec<RoleId>,
    }

    impl GuildRoles for Guild {
        fn guild_id(&self) -> &GuildId {
            &self.guild_id
        }
        fn role_bits(&self, id: &RoleId) -> u64 {
            match id.to_string().as_str() {
                "1" => self.everyone,
                "2" => self.bot_role,
                _ => 0,
            }
        }
        fn bot_role_ids(&self) -> &[RoleId] {
            &self.bot_role_ids
        }
    }

    /// The bot's user id.
    fn bot() -> UserId {
        UserId::parse("9").unwrap()
    }

    fn guild(everyone: u64, bot_role: u64) -> Guild {
        Guild {
            everyone,
            bot_role,
            bot_role_ids: vec![RoleId::parse("2").unwrap()],
            guild_id: GuildId::parse("1").unwrap(),
        }
    }

    fn overwrite(kind: &str, id: &str, allow: u64, deny: u64) -> Overwrite {
        Overwrite {
            id: DiscordId::parse(id).unwrap(),
            kind: OverwriteKind::parse(kind).unwrap(),
            allow,
            deny,
        }
    }

    #[test]
    fn everyone_may_read_by_default() {
        assert_eq!(
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &[], Some(&bot())),
            ChannelAccess::Readable
        );
    }

    #[test]
    fn a_denied_view_hides_the_channel_even_with_history_allowed() {
        let overwrites = [overwrite("role", "1", 0, VIEW)];
        assert_eq!(
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &overwrites, Some(&bot())),
            ChannelAccess::NoView
        );
    }

    #[test]
    fn a_role_overwrite_allowing_view_beats_the_everyone_deny() {
        let overwrites = [
            overwrite("role", "1", 0, VIEW),
            overwrite("role", "2", VIEW, 0),
        ];
        assert_eq!(
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &overwrites, Some(&bot())),
            ChannelAccess::Readable
        );
    }

    #[test]
    fn a_member_overwrite_has_the_last_word() {
        let overwrites = [
            overwrite("role", "2", VIEW, 0),
            overwrite("member", "9", 0, HISTORY),
        ];
        assert_eq!(
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &overwrites, Some(&bot())),
            ChannelAccess::NoHistory
        );
    }

    #[test]
    fn administrators_read_everything() {
        let overwrites = [overwrite("role", "1", 0, VIEW)];
        assert_eq!(
            channel_access(Some(&guild(0, 1 << 3)), &overwrites, Some(&bot())),
            ChannelAccess::Readable
        );
    }

    #[test]
    fn sending_needs_view_and_send_messages() {
        let everyone = VIEW | HISTORY | SEND;
        assert_eq!(
            send_access(Some(&guild(everyone, 0)), &[], Some(&bot()), false),
            SendAccess::Allowed
        );
        let no_send = [overwrite("role", "1", 0, SEND)];
        assert_eq!(
            send_access(Some(&guild(everyone, 0)), &no_send, Some(&bot()), false),
            SendAccess::NoSend
        );
        // The bot's role gives Send Messages back in this channel.
        let given_back = [
            overwrite("role", "1", 0, SEND),
            overwrite("role", "2", SEND, 0),
        ];
        assert_eq!(
            send_access(Some(&guild(everyone, 0)), &given_back, Some(&bot()), false),
            SendAccess::Allowed
        );
        let member_denied = [
            overwrite("role", "2", SEND, 0),
            overwrite("member", "9", 0, SEND),
        ];
        assert_eq!(
            send_access(
                Some(&guild(everyone, 0)),
                &member_denied,
                Some(&bot()),
                false
            ),
            SendAccess::NoSend
        );
    }

    #[test]
    fn a_denied_view_forbids_sending_even_with_send_messages_allowed() {
        let overwrites = [overwrite("role", "1", SEND, VIEW)];
        assert_eq!(
            send_access(
                Some(&guild(VIEW | SEND, SEND)),
                &overwrites,
                Some(&bot()),
                false
            ),
            SendAccess::NoView
        );
    }

    #[test]
    fn a_thread_needs_send_messages_in_threads_not_send_messages() {
        let only_threads = guild(VIEW | SEND_IN_THREADS, 0);
        assert_eq!(
            send_access(Some(&only_threads), &[], Some(&bot()), true),
            SendAccess::Allowed
        );
        assert_eq!(
            send_access(Some(&only_threads), &[], Some(&bot()), false),
            SendAccess::NoSend
        );
        let only_channels = guild(VIEW | SEND, 0);
        assert_eq!(
            send_access(Some(&only_channels), &[], Some(&bot()), true),
            SendAccess::NoSendInThreads
        );
    }

    #[test]
    fn administrators_may_send_anywhere() {
        let overwrites = [overwrite("role", "1", 0, VIEW | SEND)];
        assert_eq!(
            send_access(Some(&guild(0, 1 << 3)), &overwrites, Some(&bot()), false),
            SendAccess::Allowed
        );
    }
}
