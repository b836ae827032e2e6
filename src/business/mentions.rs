//! The owner's mentions inbox.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::channels::channels_in_scope;
use super::messages::DEFAULT_LIMIT;
use super::model::Message;
use super::{OwnerContext, since_or_default};
use crate::error::{Error, Result};
use crate::instant::Instant;
use crate::store::{ChannelAccess, Store};

/// List messages that mention the owner and arrived at or after `since`, oldest first: a
/// direct mention, a role the owner holds, @everyone or @here, or a reply to one of the
/// owner's messages. The owner's own messages are never listed. Only readable channels in
/// scope. Use `messages_catch_up` to read everything that is new instead.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListMentions {
    /// Mentions that arrived at or after this instant (inclusive, on the store's arrival
    /// clock). Default: 24 hours ago.
    pub since: Option<Instant>,
    /// At most this many mentions; `more: true` says there are others. Default 50, from 1 to 500.
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Mentions {
    pub mentions: Vec<Message>,
    /// More mentions arrived after the last one listed; pass its `createdAt` as `since`.
    pub more: bool,
}

pub fn list_mentions(
    store: &Store,
    input: ListMentions,
    context: &OwnerContext,
) -> Result<Mentions> {
    let Some(owner_id) = context.owner_id.clone() else {
        return Err(Error::config(
            "Mentions need the owner's Discord user id: set DISCORD_OWNER_ID",
        ));
    };
    let since = since_or_default(input.since);
    let limit = input.limit.unwrap_or(DEFAULT_LIMIT) as usize;
    store.read(|reader| {
        let readable: std::collections::HashSet<String> = channels_in_scope(reader, context)?
            .into_iter()
            .filter(|channel| channel.access == ChannelAccess::Readable)
            .map(|channel| channel.channel_id)
            .collect();
        let owner = context.owner_view(reader)?;
        let mut mentions = Vec::new();
        let mut more = false;
        // Mentions in unreadable or out-of-scope channels are filtered after the query, so
        // read page by page until `limit` are kept or the store has no more.
        let mut cursor = since;
        loop {
            let page = reader.mentions_since(&owner_id, &owner.role_ids, cursor, limit + 1)?;
            let exhausted = page.len() <= limit;
            let Some(last) = page.last().map(|record| record.created_at) else {
                break;
            };
            for record in &page {
                if record.created_at < cursor || !readable.contains(&record.channel_id) {
                    continue;
                }
                if mentions.len() == limit {
                    more = true;
                    break;
                }
                mentions.push(Message::from_record(record, &owner));
            }
            if more || exhausted {
                break;
            }
            cursor = last.plus_micros(1);
        }
        Ok(Mentions { mentions, more })
    })
}
