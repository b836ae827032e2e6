//! Unit tests of `messages`, kept beside it so the production file reads on its own.

use super::*;
use crate::store::ReactionChange;
use crate::store::testing::{connection, fresh_id, shared_store};

/// A plain message row of `channel_id` by `author_id`.
pub(crate) fn new_message(
    channel_id: impl std::fmt::Display,
    author_id: impl std::fmt::Display,
    content: &str,
) -> NewMessage {
    let (channel_id, author_id) = (channel_id.to_string(), author_id.to_string());
    NewMessage {
        message_id: fresh_id(),
        channel_id: channel_id.parse().unwrap(),
        guild_id: None,
        author_id: author_id.parse().unwrap(),
        author_name: format!("user {author_id}"),
        content: content.to_string(),
        sent_at: Instant::parse("2026-11-29T10:00:00Z").unwrap(),
        reply_to_message_id: None,
        reply_to_author_id: None,
        mention_everyone: false,
        mentioned_user_ids: Vec::new(),
        mentioned_role_ids: Vec::new(),
        origin: Origin::Gateway,
        provenance: Provenance::default(),
    }
}

/// What a recorder wrote before replies were told from other references: the target's
/// author as `reply_to_author_id` for a pin notice and a forward (with no reply id) and a
/// thread's starter (with one). Written here as rows, since today's recorder no longer
/// writes them; none of them is a mention of the owner, and the true reply still is.
#[test]
fn a_store_holding_false_mentions_from_before_has_none_in_any_reader() {
    use crate::store::search::{OwnerMentions, SearchFilter};
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    let owner: UserId = fresh_id();
    let since = store.read(|reader| reader.clock_now()).unwrap();
    let own = new_message(channel, owner, "zebracrossing release notes");
    let falsely = |content: &str, reply_id: Option<&MessageId>| {
        let mut row = new_message(channel, "7", content);
        row.reply_to_author_id = Some(owner);
        row.reply_to_message_id = reply_id.cloned();
        row
    };
    let pin = falsely("", None);
    let forward = falsely("", None);
    let starter = falsely("zebracrossing thread starter", Some(&own.message_id));
    let reply = falsely("zebracrossing thanks", Some(&own.message_id));
    store
        .write(|writer| {
            for row in [&own, &pin, &forward, &starter, &reply] {
                writer.insert_message(row)?;
            }
            let thread_starter = MessageExtras {
                kind: THREAD_STARTER_MESSAGE,
                ..MessageExtras::default()
            };
            writer.record_extras(&starter.message_id, &channel, &thread_starter)?;
            Ok(())
        })
        .unwrap();
    let stored_as_replied_to: i64 = connection(&store)
        .query_row(
            "SELECT count(*) FROM messages WHERE reply_to_author_id = ?1",
            [owner.to_string()],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(
        stored_as_replied_to, 4,
        "the rows stay as they were written"
    );
    store
        .read(|reader| {
            let candidates = reader.mention_candidates_since(&owner, &[], since, 500)?;
            let listed: Vec<MessageId> = reader
                .hydrate_mentions(candidates)?
                .into_iter()
                .map(|record| record.message_id)
                .collect();
            assert_eq!(listed, std::slice::from_ref(&reply.message_id));
            let shown = reader.messages(&[&pin.message_id, &starter.message_id])?;
            assert_eq!(shown.iter().flatten().count(), 2);
            for record in shown.into_iter().flatten() {
                assert_eq!(record.reply_to_author_id, None, "{:?}", record.message_id);
                assert_eq!(record.reply_to_message_id, None, "{:?}", record.message_id);
            }
            let filter = SearchFilter {
                channel_ids: vec![channel],
                mentions_owner: Some((
                    true,
                    OwnerMentions {
                        user_id: owner,
                        role_ids: Vec::new(),
                    },
                )),
                ..SearchFilter::default()
            };
            let found: Vec<MessageId> = reader
                .search("zebracrossing", &filter, 10)?
                .unwrap_or_default()
                .hits
                .into_iter()
                .map(|hit| hit.message.message_id)
                .collect();
            assert_eq!(found, std::slice::from_ref(&reply.message_id));
            Ok(())
        })
        .unwrap();
}

#[test]
fn the_news_readers_name_imported_history_with_the_arrival_indexes_literal() {
    // The literal the statements compose is the vocabulary's one spelling...
    assert_eq!(imported_origin!(), Origin::Import.as_str());
    assert_eq!(imported_origin!(), "import");
    // ...and the term the arrival index is partial on, which a query must repeat word for
    // word for SQLite to use the index.
    let term = concat!("origin <> '", imported_origin!(), "'");
    let index: String = connection(&shared_store())
        .query_row(
            "SELECT sql FROM sqlite_master WHERE name = 'messages_by_arrival'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert!(index.ends_with(&format!("WHERE {term}")), "{index}");
}

#[test]
fn arrivals_are_counted_per_channel_in_the_window_and_after_the_split_to_the_microsecond() {
    let store = shared_store();
    let (busy, quiet): (ChannelId, ChannelId) = (fresh_id(), fresh_id());
    let messages = [
        new_message(busy, "7", "one"),
        new_message(quiet, "7", "two"),
        new_message(busy, "7", "three"),
        new_message(busy, "7", "four"),
    ];
    store
        .write(|writer| {
            for message in &messages {
                writer.insert_message(message)?;
            }
            Ok(())
        })
        .unwrap();
    let ids: Vec<&MessageId> = messages.iter().map(|m| &m.message_id).collect();
    let arrived: Vec<Instant> = store
        .read(|reader| reader.messages(&ids))
        .unwrap()
        .into_iter()
        .map(|record| record.unwrap().created_at)
        .collect();
    let ours = |counts: &HashMap<ChannelId, u64>| {
        (
            counts.get(&busy).copied().unwrap_or(0),
            counts.get(&quiet).copied().unwrap_or(0),
        )
    };
    let counted = |from: Instant, split: Option<Instant>| {
        let counts = store
            .read(|reader| reader.arrivals_by_channel(from, split))
            .unwrap();
        (ours(&counts.window), ours(&counts.after))
    };
    // The window starts at the first arrival, inclusive; one microsecond later it has not.
    assert_eq!(counted(arrived[0], None), ((3, 1), (0, 0)));
    assert_eq!(counted(arrived[0].plus_micros(1), None).0, (2, 1));
    // The split is inclusive too: at the third message, it and the fourth come after.
    assert_eq!(counted(arrived[0], Some(arrived[2])), ((3, 1), (2, 0)));
    assert_eq!(
        counted(arrived[0], Some(arrived[2].plus_micros(1))),
        ((3, 1), (1, 0))
    );
    assert_eq!(
        counted(arrived[0], Some(arrived[1])),
        ((3, 1), (2, 1)),
        "the second message is the quiet channel's"
    );
}

#[test]
fn messages_by_id_are_hydrated_in_the_order_asked_with_none_for_unknown_ids() {
    let store = shared_store();
    let channel: ChannelId = fresh_id();
    let first = new_message(channel, "7", "first");
    let mut second = new_message(channel, "8", "second");
    second.mentioned_user_ids = vec!["9".parse().unwrap()];
    let edited_at = Instant::parse("2026-11-29T11:00:00Z").unwrap();
    store
        .write(|writer| {
            writer.insert_message(&first)?;
            writer.insert_message(&second)?;
            writer.insert_edit(&NewEdit {
                message_id: first.message_id,
                channel_id: channel,
                content: "first, edited".into(),
                edited_at,
                mentioned_user_ids: Vec::new(),
                mentioned_role_ids: vec!["5".parse().unwrap()],
                imported: false,
            })?;
            writer.record_reaction(&ReactionChange::Add {
                message_id: first.message_id,
                channel_id: channel,
                user_id: "8".parse().unwrap(),
                emoji: "👍".into(),
            })?;
            writer.insert_deletion(&second.message_id, &channel, false)
        })
        .unwrap();
    let unknown = fresh_id();
    let found = store
        .read(|reader| {
            reader.messages(&[&second.message_id, &unknown, &first.message_id, &unknown])
        })
        .unwrap();
    assert_eq!(found.len(), 4);
    assert!(found[1].is_none() && found[3].is_none());
    let second_found = found[0].as_ref().unwrap();
    assert_eq!(second_found.message_id, second.message_id);
    assert_eq!(second_found.current_content(), "second");
    assert!(second_found.deleted);
    assert_eq!(second_found.mentioned_user_ids, vec!["9".to_string()]);
    assert_eq!(second_found.reactions, Vec::new());
    let first_found = found[2].as_ref().unwrap();
    assert_eq!(first_found.message_id, first.message_id);
    assert_eq!(first_found.original_content, "first");
    assert_eq!(first_found.current_content(), "first, edited");
    assert_eq!(first_found.edited_at(), Some(edited_at));
    assert!(!first_found.deleted);
    assert_eq!(first_found.mentioned_role_ids, vec!["5".to_string()]);
    assert_eq!(
        first_found.reactions,
        vec![ReactionCount {
            emoji: "👍".into(),
            count: 1
        }]
    );
    // Nothing asked, nothing found.
    assert!(
        store
            .read(|reader| reader.messages(&[]))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_catch_up_page_per_channel_is_in_arrival_order_and_cut_at_the_limit() {
    let store = shared_store();
    let (busy, quiet, empty) = (fresh_id(), fresh_id(), fresh_id());
    let rows: Vec<NewMessage> = ["a", "b", "c", "d"]
        .iter()
        .map(|content| new_message(busy, "7", content))
        .chain([new_message(quiet, "8", "e")])
        .collect();
    let stamped: Vec<Instant> = store
        .write(|writer| {
            let mut stamped = Vec::new();
            for row in &rows {
                writer.insert_message(row)?;
                stamped.push(
                    writer
                        .reader()
                        .message(&row.message_id)?
                        .unwrap()
                        .created_at,
                );
            }
            Ok(stamped)
        })
        .unwrap();
    // From the second message on (inclusive), at most two per channel.
    let pages = store
        .read(|reader| reader.channels_messages_since(&[&quiet, &empty, &busy], stamped[1], 2))
        .unwrap();
    let contents: Vec<Vec<&str>> = pages
        .iter()
        .map(|page| page.iter().map(|m| m.original_content.as_str()).collect())
        .collect();
    assert_eq!(contents, vec![vec!["e"], vec![], vec!["b", "c"]]);
}
