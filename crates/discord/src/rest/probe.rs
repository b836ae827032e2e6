//! The REST calls `setup` and `doctor` make to learn about the bot, kept apart from the
//! daemon's: the application with its flags, the guilds the bot is in, and a guild's roles and
//! the bot's own roles there (what the bot may read is computed from them).
//!
//! Each answer is read into the few fields used, so the rest of Discord's objects may change
//! freely; serenity's own role and member types would need a `guild_id` that REST leaves out.

use discord_manager_vocabulary::snowflake;
use serenity::http::Route;
use serenity::model::id::{GuildId, UserId};

use super::{Rest, RestError};

/// The bot's application, as `GET /oauth2/applications/@me` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplicationInfo {
    pub id: snowflake::ApplicationId,
    pub name: String,
    /// Who owns it: a team application's owner, else the owner.
    pub owner_id: Option<snowflake::UserId>,
    /// The application's flags (the privileged intents it may use among them).
    pub flags: u64,
}

/// A guild the bot is in, as `GET /users/@me/guilds` lists it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct GuildSummary {
    pub id: snowflake::GuildId,
    pub name: String,
}

/// A role's id and permission bits, from `GET /guilds/{id}/roles`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleBits {
    pub id: snowflake::RoleId,
    pub permissions: u64,
}

/// How many guilds `GET /users/@me/guilds` answers at most per page.
const GUILDS_PER_PAGE: usize = 200;

impl Rest {
    /// `GET /oauth2/applications/@me`: the application, its owner and its flags.
    pub async fn application(&self) -> Result<ApplicationInfo, RestError> {
        #[derive(serde::Deserialize)]
        struct Owner {
            id: snowflake::UserId,
        }
        #[derive(serde::Deserialize)]
        struct Team {
            owner_user_id: snowflake::UserId,
        }
        #[derive(serde::Deserialize)]
        struct Application {
            id: snowflake::ApplicationId,
            name: String,
            #[serde(default)]
            flags: u64,
            owner: Option<Owner>,
            team: Option<Team>,
        }
        let application: Application = self
            .get(Route::Oauth2ApplicationCurrent, Vec::new())
            .await?;
        Ok(ApplicationInfo {
            id: application.id,
            name: application.name,
            owner_id: application
                .team
                .map(|team| team.owner_user_id)
                .or(application.owner.map(|owner| owner.id)),
            flags: application.flags,
        })
    }

    /// `GET /users/@me/guilds`, every page: the guilds the bot is in, in Discord's order.
    pub async fn guilds(&self) -> Result<Vec<GuildSummary>, RestError> {
        let mut guilds: Vec<GuildSummary> = Vec::new();
        loop {
            let mut params = vec![("limit", GUILDS_PER_PAGE.to_string())];
            if let Some(last) = guilds.last() {
                params.push(("after", last.id.to_string()));
            }
            let page: Vec<GuildSummary> = self.get(Route::UserMeGuilds, params).await?;
            let full = page.len() == GUILDS_PER_PAGE;
            guilds.extend(page);
            if !full {
                return Ok(guilds);
            }
        }
    }

    /// `GET /guilds/{id}/roles`: every role with its permission bits (the @everyone role has
    /// the guild's id).
    pub async fn guild_roles(&self, guild_id: GuildId) -> Result<Vec<RoleBits>, RestError> {
        #[derive(serde::Deserialize)]
        struct Role {
            id: snowflake::RoleId,
            /// Discord sends the bits as a string of digits.
            permissions: String,
        }
        let roles: Vec<Role> = self.get(Route::GuildRoles { guild_id }, Vec::new()).await?;
        roles
            .into_iter()
            .map(|role| {
                let permissions = role.permissions.parse::<u64>().map_err(|_| {
                    RestError::Invalid(format!(
                        "the role {} has permissions that are not a number",
                        role.id
                    ))
                })?;
                Ok(RoleBits {
                    id: role.id,
                    permissions,
                })
            })
            .collect()
    }

    /// `GET /guilds/{id}/members/{user}`: the ids of the roles a member holds.
    pub async fn member_roles(
        &self,
        guild_id: GuildId,
        user_id: UserId,
    ) -> Result<Vec<snowflake::RoleId>, RestError> {
        #[derive(serde::Deserialize)]
        struct Member {
            roles: Vec<snowflake::RoleId>,
        }
        let member: Member = self
            .get(Route::GuildMember { guild_id, user_id }, Vec::new())
            .await?;
        Ok(member.roles)
    }
}
