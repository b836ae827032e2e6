//! The owner context: who the owner is, what is in scope, and what this deployment may do.
//! Built once at start-up; every capability receives it and every gate reads it.

use std::sync::Arc;

use discord_manager_store::{Reader, Store};
use discord_manager_vocabulary::error::Result;
use discord_manager_vocabulary::snowflake::{ChannelId, GuildId, UserId};
use discord_manager_vocabulary::words::word_enum;

use super::approval::OwnerApproval;
use super::model::OwnerView;
use crate::business::kernel::attachment_work::AttachmentWork;
use crate::business::kernel::meaning_index::MeaningIndex;
use crate::business::kernel::waiting_calls::WaitingCalls;
use crate::config::{Config, GuildScope, Keywords};

word_enum! {
    /// Which surface a call came through; recorded on what the owner creates (bookmarks).
    pub enum Source {
        /// The owner, typing a command.
        Cli = "cli",
        /// An assistant, through the MCP server: held to what the owner allowed it.
        Mcp = "mcp",
        /// The ingest daemon's own work (the scheduler). It creates nothing of the owner's; what
        /// it sends for someone is checked by the rules of whoever scheduled it.
        Daemon = "daemon",
    }
}

#[derive(Debug, Clone)]
pub struct OwnerContext {
    /// The owner's Discord user id: `DISCORD_OWNER_ID`, else the application owner the store
    /// learned from Discord (or from the demo seed).
    pub owner_id: Option<UserId>,
    /// The guilds in scope.
    pub guild_scope: GuildScope,
    /// A bot token is configured (sending needs one).
    pub token_configured: bool,
    /// `DISCORD_MANAGER_READ_ONLY=1`: sending and scheduling are denied.
    pub read_only: bool,
    /// `DISCORD_MANAGER_SEND_CHANNELS`: the channels an assistant (MCP) may post in, and the
    /// only ones sending goes to at all when set. Unset: an assistant may post nowhere, the
    /// owner's CLI anywhere the bot may send.
    pub send_channel_ids: Option<Vec<ChannelId>>,
    /// `DISCORD_MANAGER_ALLOW_DMS=1`: direct-message channels are in scope. Off by default:
    /// anyone can DM a bot, so a DM is the easiest way to put words in front of an assistant
    /// and the easiest place to send the owner's history to.
    pub allow_dms: bool,
    /// `DISCORD_MANAGER_LINK_PREVIEWS=1`: the bot's posts let Discord unfurl links. Off by
    /// default: Discord fetches a previewed URL at once, so a URL an assistant was talked into
    /// writing would carry data out without anyone clicking it.
    pub link_previews: bool,
    /// `DISCORD_MANAGER_CONFIRM_POSTS=1`: an assistant's every post, reply, edit and schedule
    /// waits for the owner's yes, in the listed channels too; refused when the owner cannot be
    /// asked.
    pub confirm_posts: bool,
    /// How to ask the owner, in person, about one of an assistant's posts: the MCP server's
    /// form, for a call from a client that can show one; None everywhere else.
    pub owner_approval: Option<Arc<dyn OwnerApproval>>,
    /// `DISCORD_MANAGER_KEYWORDS`: what the briefing's "Your keywords" looks for.
    pub keywords: Keywords,
    /// `DISCORD_MANAGER_MEANING`: search by meaning is on (the default); off, a search in
    /// mode meaning or both is refused, saying how to turn it on.
    pub meaning: bool,
    /// The turns of reading and decoding kept attachment files: how many calls do it at once.
    /// Shared by every call of one server (the contexts it clones), so the MCP server's calls
    /// together take at most its bound, as the CLI's one call does.
    pub attachment_work: AttachmentWork,
    /// The places of calls waiting for something new (`activity_wait` with `waitSeconds`): how
    /// many wait at once. Shared like `attachment_work`.
    pub waiting_calls: WaitingCalls,
    /// The index of meanings of the store this context reads, loaded at the first search by
    /// meaning. Shared like `attachment_work`: one server's calls search one index.
    pub meanings: MeaningIndex,
    pub source: Source,
}

/// Builds the owner context from the configuration and what the store knows.
pub fn build_owner_context(config: &Config, store: &Store, source: Source) -> Result<OwnerContext> {
    let learned_owner = store.read(|reader| Ok(reader.identity()?.owner_user_id))?;
    Ok(OwnerContext {
        owner_id: config.owner_id.or(learned_owner),
        guild_scope: config.guild_scope.clone(),
        token_configured: config.token.is_some(),
        read_only: config.read_only,
        send_channel_ids: config.send_channel_ids.clone(),
        allow_dms: config.allow_dms,
        link_previews: config.link_previews,
        confirm_posts: config.confirm_posts,
        owner_approval: None,
        keywords: config.keywords.clone(),
        meaning: config.meaning,
        attachment_work: AttachmentWork::default(),
        waiting_calls: WaitingCalls::default(),
        meanings: MeaningIndex::default(),
        source,
    })
}

impl OwnerContext {
    /// The context of `owner_id` over `guild_scope`, called through `source`, with every
    /// setting at the value an unset variable gives it: no token, not read-only, no channel an
    /// assistant may post in, no direct messages, no link previews, no confirmation asked, no
    /// keywords, search by meaning on, and places of its own for attachment work, waiting calls
    /// and the index of meanings. For what builds a context without a configuration (the demo
    /// seed, fixtures, the benchmarks), each changing what it needs with `..`;
    /// [`build_owner_context`] names every field, so a new setting cannot be left to this.
    pub fn with_unset_settings(
        owner_id: Option<UserId>,
        guild_scope: GuildScope,
        source: Source,
    ) -> Self {
        OwnerContext {
            owner_id,
            guild_scope,
            token_configured: false,
            read_only: false,
            send_channel_ids: None,
            allow_dms: false,
            link_previews: false,
            confirm_posts: false,
            owner_approval: None,
            keywords: Keywords::default(),
            meaning: true,
            attachment_work: AttachmentWork::default(),
            waiting_calls: WaitingCalls::default(),
            meanings: MeaningIndex::default(),
            source,
        }
    }

    /// Whether the owner can be asked, in person, about a post.
    pub(crate) fn can_ask_owner(&self) -> bool {
        self.owner_approval.is_some()
    }

    /// Whether something in this guild (None: a direct message) is in the owner's scope.
    pub fn in_scope(&self, guild_id: Option<&GuildId>) -> bool {
        match guild_id {
            None => self.allow_dms,
            Some(guild_id) => self.guild_scope.includes(guild_id),
        }
    }

    /// Why channel `channel_id` of this guild (None: a direct message) is out of scope, for a
    /// refusal; the owner reads which setting brings it in.
    pub(crate) fn out_of_scope_reason(
        &self,
        guild_id: Option<&GuildId>,
        channel_id: &ChannelId,
    ) -> String {
        match guild_id {
            None => format!(
                "Channel {channel_id} is a direct message, out of scope: set \
                 DISCORD_MANAGER_ALLOW_DMS=1 to read and send direct messages"
            ),
            Some(_) => {
                format!("Channel {channel_id} is outside the guilds in scope (DISCORD_GUILD_IDS)")
            }
        }
    }

    pub(crate) fn owner_view(&self, reader: &Reader<'_>) -> Result<OwnerView> {
        let bot_user_id = reader.identity()?.bot_user_id;
        Ok(match &self.owner_id {
            Some(owner) => OwnerView {
                user_id: Some(*owner),
                role_ids: reader.roles_held_by(owner)?,
                bot_user_id,
            },
            None => OwnerView {
                bot_user_id,
                ..OwnerView::default()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use discord_manager_playback::world::World;

    use super::*;

    /// What `with_unset_settings` promises: the context the surfaces build when no variable
    /// is set, setting for setting.
    #[test]
    fn unset_settings_are_what_a_configuration_with_no_variable_gives() {
        let world = World::alone();
        let config = Config::from_lookup(|_| None).expect("no variable is a valid configuration");
        let built = build_owner_context(&config, &world.store, Source::Mcp).unwrap();
        let unset = OwnerContext::with_unset_settings(
            built.owner_id,
            GuildScope::every_guild(),
            Source::Mcp,
        );
        assert_eq!(unset.guild_scope, built.guild_scope);
        assert_eq!(unset.token_configured, built.token_configured);
        assert_eq!(unset.read_only, built.read_only);
        assert_eq!(unset.send_channel_ids, built.send_channel_ids);
        assert_eq!(unset.allow_dms, built.allow_dms);
        assert_eq!(unset.link_previews, built.link_previews);
        assert_eq!(unset.confirm_posts, built.confirm_posts);
        assert_eq!(
            unset.owner_approval.is_none(),
            built.owner_approval.is_none()
        );
        assert_eq!(unset.keywords, built.keywords);
        assert_eq!(unset.meaning, built.meaning);
        assert_eq!(unset.source, built.source);
    }
}
