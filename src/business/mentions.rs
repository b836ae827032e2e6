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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_fixtures::{VIEW, World, new_id};

    fn mentions_from(world: &World, since: Instant, limit: Option<u32>) -> Mentions {
        list_mentions(
            &world.store,
            ListMentions {
                since: Some(since),
                limit,
            },
            &world.context(),
        )
        .unwrap()
    }

    fn ids(mentions: &Mentions) -> Vec<&str> {
        mentions
            .mentions
            .iter()
            .map(|message| message.message_id.as_str())
            .collect()
    }

    #[test]
    fn finds_direct_role_everyone_and_reply_mentions_but_never_the_owners_own() {
        let world = World::new();
        let channel = world.channel("general");
        let owner = world.owner_id.clone();
        let direct = world.post(&channel, "7", "hey", json!({"mentions": [{"id": owner, "username": "o", "discriminator": "0", "avatar": null}]}));
        world.post(&channel, "7", "not about you", json!({}));
        let by_role = world.post(
            &channel,
            "7",
            "maintainers!",
            json!({"mention_roles": [world.owner_role_id]}),
        );
        let other_role = world.post(
            &channel,
            "7",
            "someone else's role",
            json!({"mention_roles": [new_id()]}),
        );
        let everyone = world.post(&channel, "7", "@here", json!({"mention_everyone": true}));
        let own = world.post(
            &channel,
            &owner,
            "my own @here",
            json!({"mention_everyone": true}),
        );
        let reply = world.post(
            &channel,
            "8",
            "answering you",
            json!({"type": 19, "message_reference": {"message_id": own, "channel_id": channel}}),
        );
        let result = mentions_from(&world, Instant::from_micros(0), None);
        assert_eq!(
            ids(&result),
            vec![
                direct.as_str(),
                by_role.as_str(),
                everyone.as_str(),
                reply.as_str()
            ]
        );
        assert!(result.mentions.iter().all(|message| message.mentions_owner));
        assert!(!ids(&result).contains(&other_role.as_str()));
        assert!(!result.more);
    }

    #[test]
    fn since_is_inclusive_on_the_arrival_clock() {
        let world = World::new();
        let channel = world.channel("general");
        let first = world.post(
            &channel,
            "7",
            "@here one",
            json!({"mention_everyone": true}),
        );
        let second = world.post(
            &channel,
            "7",
            "@here two",
            json!({"mention_everyone": true}),
        );
        let all = mentions_from(&world, Instant::from_micros(0), None);
        assert_eq!(ids(&all), vec![first.as_str(), second.as_str()]);
        let second_arrived = all.mentions[1].created_at;
        assert_eq!(
            ids(&mentions_from(&world, second_arrived, None)),
            vec![second.as_str()]
        );
        assert_eq!(
            mentions_from(&world, second_arrived.plus_micros(1), None)
                .mentions
                .len(),
            0
        );
    }

    #[test]
    fn stops_at_the_limit_and_says_more_are_waiting() {
        let world = World::new();
        let channel = world.channel("general");
        let first = world.post(&channel, "7", "@here 1", json!({"mention_everyone": true}));
        world.post(&channel, "7", "@here 2", json!({"mention_everyone": true}));
        let result = mentions_from(&world, Instant::from_micros(0), Some(1));
        assert_eq!(ids(&result), vec![first.as_str()]);
        assert!(result.more);
    }

    #[test]
    fn leaves_out_mentions_in_channels_the_bot_cannot_read() {
        let world = World::new();
        let readable = world.channel("open");
        let hidden = world.channel_with(
            "hidden",
            json!([{"id": world.guild_id, "type": 0, "allow": "0", "deny": VIEW.to_string()}]),
        );
        world.post(
            &hidden,
            "7",
            "@here hidden",
            json!({"mention_everyone": true}),
        );
        let visible = world.post(
            &readable,
            "7",
            "@here open",
            json!({"mention_everyone": true}),
        );
        assert_eq!(
            ids(&mentions_from(&world, Instant::from_micros(0), Some(1))),
            vec![visible.as_str()]
        );
    }

    #[test]
    fn needs_the_owners_id() {
        let world = World::new();
        let mut context = world.context();
        context.owner_id = None;
        let error = list_mentions(&world.store, ListMentions::default(), &context).unwrap_err();
        assert_eq!(
            error.message(),
            "Mentions need the owner's Discord user id: set DISCORD_OWNER_ID"
        );
        assert_eq!(error.kind(), crate::ErrorKind::Config);
    }
}
