//! Recorders for the bot's identity, guilds, roles and members' roles.

use discord_manager_store::{
    GuildRecord, Identity, IdentitySource, RolePermissions, Store, Writer,
};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake;
use serenity::model::event::GuildMemberUpdateEvent;
use serenity::model::gateway::Ready;
use serenity::model::guild::{Guild, PartialGuild, Role, UnavailableGuild};
use serenity::model::id::{GuildId, RoleId};

use super::Recorded;
use super::channels::{record_channel_in, refresh_guild_channels};
use crate::ids::TypedId;

pub(super) fn record_ready_in(writer: &mut Writer<'_>, ready: &Ready) -> Result<Recorded> {
    let identity = Identity {
        bot_user_id: Some(ready.user.id.typed()),
        bot_name: Some(ready.user.name.clone()),
        owner_user_id: None,
    };
    Ok(writer
        .record_identity(&identity, IdentitySource::Gateway)?
        .into())
}

/// The owner of the bot's application, as Discord reports it (or as the demo seed sets it).
pub fn record_application_owner(
    store: &Store,
    owner_user_id: &snowflake::UserId,
    source: IdentitySource,
) -> Result<Recorded> {
    store.write(|writer| record_application_owner_in(writer, owner_user_id, source))
}

/// [`record_application_owner`] inside a write the caller holds (the benchmark's generator
/// lays a whole store in a few).
pub fn record_application_owner_in(
    writer: &mut Writer<'_>,
    owner_user_id: &snowflake::UserId,
    source: IdentitySource,
) -> Result<Recorded> {
    let identity = Identity {
        owner_user_id: Some(*owner_user_id),
        ..Identity::default()
    };
    Ok(writer.record_identity(&identity, source)?.into())
}

fn roles_of<'a>(roles: impl Iterator<Item = &'a Role>) -> Vec<RolePermissions> {
    let mut roles: Vec<RolePermissions> = roles
        .map(|role| RolePermissions {
            id: role.id.typed(),
            permissions: role.permissions.bits(),
            name: role.name.clone(),
        })
        .collect();
    roles.sort_by_key(|a| a.id);
    roles
}

fn sorted_ids(ids: &[RoleId]) -> Vec<snowflake::RoleId> {
    let mut ids: Vec<snowflake::RoleId> = ids.iter().map(TypedId::typed).collect();
    ids.sort();
    ids
}

/// Records a change to a known guild (or the first sighting) and recomputes its channels.
fn update_guild(
    writer: &mut Writer<'_>,
    guild_id: &snowflake::GuildId,
    change: impl FnOnce(&mut GuildRecord),
) -> Result<bool> {
    let mut guild = writer
        .reader()
        .guild(guild_id)?
        .unwrap_or_else(|| GuildRecord {
            guild_id: *guild_id,
            name: String::new(),
            roles: Vec::new(),
            bot_role_ids: Vec::new(),
            removed: false,
        });
    change(&mut guild);
    let mut changed = writer.record_guild(&guild)?;
    changed |= refresh_guild_channels(writer, guild_id)?;
    Ok(changed)
}

/// GUILD_CREATE: the guild with its roles, members, channels and active threads.
pub fn record_guild(store: &Store, guild: &Guild) -> Result<Recorded> {
    store.write(|writer| record_guild_in(writer, guild))
}

pub(super) fn record_guild_in(writer: &mut Writer<'_>, guild: &Guild) -> Result<Recorded> {
    let guild_id = guild.id.typed();
    let bot = writer.reader().identity()?.bot_user_id;
    let bot_role_ids = bot
        .and_then(|bot| {
            guild
                .members
                .values()
                .find(|member| member.user.id.typed() == bot)
        })
        .map(|member| sorted_ids(&member.roles))
        .unwrap_or_default();
    let mut changed = writer.record_guild(&GuildRecord {
        guild_id,
        name: guild.name.clone(),
        roles: roles_of(guild.roles.values()),
        bot_role_ids,
        removed: false,
    })?;
    for member in guild.members.values() {
        changed |= writer.record_member_roles(
            &guild_id,
            &member.user.id.typed(),
            &sorted_ids(&member.roles),
        )?;
    }
    // Parents first, so threads can read their parent's access.
    let mut channels: Vec<_> = guild.channels.values().collect();
    channels.sort_by_key(|channel| channel.id);
    for channel in channels.into_iter().chain(guild.threads.iter()) {
        changed |= record_channel_in(writer, channel)?;
    }
    changed |= refresh_guild_channels(writer, &guild_id)?;
    Ok(changed.into())
}

pub(super) fn record_guild_update_in(
    writer: &mut Writer<'_>,
    guild: &PartialGuild,
) -> Result<Recorded> {
    let changed = update_guild(writer, &guild.id.typed(), |known| {
        known.name = guild.name.clone();
        known.roles = roles_of(guild.roles.values());
        known.removed = false;
    })?;
    Ok(changed.into())
}

pub(super) fn record_guild_removed_in(
    writer: &mut Writer<'_>,
    guild: &UnavailableGuild,
) -> Result<Recorded> {
    if guild.unavailable {
        return Ok(Recorded::Ignored);
    }
    let guild_id = guild.id.typed();
    if writer.reader().guild(&guild_id)?.is_none() {
        return Ok(Recorded::AlreadyKnown);
    }
    Ok(update_guild(writer, &guild_id, |known| known.removed = true)?.into())
}

pub(super) fn record_role_in(writer: &mut Writer<'_>, role: &Role) -> Result<Recorded> {
    let entry = RolePermissions {
        id: role.id.typed(),
        permissions: role.permissions.bits(),
        name: role.name.clone(),
    };
    let changed = update_guild(writer, &role.guild_id.typed(), |known| {
        known.roles.retain(|existing| existing.id != entry.id);
        known.roles.push(entry);
        known.roles.sort_by_key(|a| a.id);
    })?;
    Ok(changed.into())
}

pub(super) fn record_role_deleted_in(
    writer: &mut Writer<'_>,
    guild_id: GuildId,
    role_id: RoleId,
) -> Result<Recorded> {
    let role_id = role_id.typed();
    let changed = update_guild(writer, &guild_id.typed(), |known| {
        known.roles.retain(|existing| existing.id != role_id);
        known.bot_role_ids.retain(|existing| *existing != role_id);
    })?;
    Ok(changed.into())
}

pub(super) fn record_member_update_in(
    writer: &mut Writer<'_>,
    update: &GuildMemberUpdateEvent,
) -> Result<Recorded> {
    let guild_id = update.guild_id.typed();
    let user_id = update.user.id.typed();
    let roles = sorted_ids(&update.roles);
    let mut changed = writer.record_member_roles(&guild_id, &user_id, &roles)?;
    if writer.reader().identity()?.bot_user_id.as_ref() == Some(&user_id) {
        changed |= update_guild(writer, &guild_id, |known| {
            known.bot_role_ids = roles.clone()
        })?;
    }
    Ok(changed.into())
}
