//! Whether the bot can read a channel, from the guild's roles, the bot's roles and the
//! channel's overwrites, following Discord's documented order of application.
//!
//! VIEW_CHANNEL and READ_MESSAGE_HISTORY are checked explicitly: serenity's own computation
//! does not clear other bits when VIEW_CHANNEL is denied.

use serenity::model::permissions::Permissions;

use crate::store::{ChannelAccess, GuildRecord, Overwrite};

pub(crate) fn channel_access(
    guild: Option<&GuildRecord>,
    overwrites: &[Overwrite],
    bot_user_id: Option<&str>,
) -> ChannelAccess {
    // Without the guild we cannot compute anything; the bot was sent the channel, so it is
    // at least visible to it.
    let Some(guild) = guild else {
        return ChannelAccess::Readable;
    };
    let role_bits = |id: &str| {
        guild
            .roles
            .iter()
            .find(|role| role.id == id)
            .map_or(0, |role| role.permissions)
    };
    // The @everyone role has the guild's id.
    let mut bits = role_bits(&guild.guild_id);
    for role in &guild.bot_role_ids {
        bits |= role_bits(role);
    }
    let mut permissions = Permissions::from_bits_truncate(bits);
    if permissions.contains(Permissions::ADMINISTRATOR) {
        return ChannelAccess::Readable;
    }
    let mut apply = |allow: u64, deny: u64| {
        permissions &= !Permissions::from_bits_truncate(deny);
        permissions |= Permissions::from_bits_truncate(allow);
    };
    if let Some(everyone) = overwrites
        .iter()
        .find(|o| o.kind == "role" && o.id == guild.guild_id)
    {
        apply(everyone.allow, everyone.deny);
    }
    let (mut allow, mut deny) = (0, 0);
    for overwrite in overwrites
        .iter()
        .filter(|o| o.kind == "role" && guild.bot_role_ids.contains(&o.id))
    {
        allow |= overwrite.allow;
        deny |= overwrite.deny;
    }
    apply(allow, deny);
    if let Some(member) = overwrites
        .iter()
        .find(|o| o.kind == "member" && Some(o.id.as_str()) == bot_user_id)
    {
        apply(member.allow, member.deny);
    }
    if !permissions.contains(Permissions::VIEW_CHANNEL) {
        ChannelAccess::NoView
    } else if !permissions.contains(Permissions::READ_MESSAGE_HISTORY) {
        ChannelAccess::NoHistory
    } else {
        ChannelAccess::Readable
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::RolePermissions;

    const VIEW: u64 = 1 << 10;
    const HISTORY: u64 = 1 << 16;

    fn guild(everyone: u64, bot_role: u64) -> GuildRecord {
        GuildRecord {
            guild_id: "1".into(),
            name: "g".into(),
            roles: vec![
                RolePermissions {
                    id: "1".into(),
                    permissions: everyone,
                },
                RolePermissions {
                    id: "2".into(),
                    permissions: bot_role,
                },
            ],
            bot_role_ids: vec!["2".into()],
            removed: false,
        }
    }

    fn overwrite(kind: &str, id: &str, allow: u64, deny: u64) -> Overwrite {
        Overwrite {
            id: id.into(),
            kind: kind.into(),
            allow,
            deny,
        }
    }

    #[test]
    fn everyone_may_read_by_default() {
        assert_eq!(
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &[], Some("9")),
            ChannelAccess::Readable
        );
    }

    #[test]
    fn a_denied_view_hides_the_channel_even_with_history_allowed() {
        let overwrites = [overwrite("role", "1", 0, VIEW)];
        assert_eq!(
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &overwrites, Some("9")),
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
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &overwrites, Some("9")),
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
            channel_access(Some(&guild(VIEW | HISTORY, 0)), &overwrites, Some("9")),
            ChannelAccess::NoHistory
        );
    }

    #[test]
    fn administrators_read_everything() {
        let overwrites = [overwrite("role", "1", 0, VIEW)];
        assert_eq!(
            channel_access(Some(&guild(0, 1 << 3)), &overwrites, Some("9")),
            ChannelAccess::Readable
        );
    }
}
