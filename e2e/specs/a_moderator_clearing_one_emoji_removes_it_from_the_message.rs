//! When a moderator removes every reaction of one emoji (MESSAGE_REACTION_REMOVE_EMOJI, in the
//! shape Discord documents it: no `burst`, no `type`), that emoji leaves the message's
//! reactions and the others stay.
//!
//! serenity 0.12.5 reads this dispatch into its `Reaction`, which requires `burst` and `type`;
//! `ingest::feed::repair_unparsed` parses Discord's own payload instead of losing it.

use serde_json::json;

use crate::support::{CaughtUp, Emoji, Feed, Guild, Post, Reaction, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let message = feed.post(Post::new(&general, &grace, "Shipped v2.4.0."));
    let party = Emoji::unicode("🎉");
    let fire = Emoji::unicode("🔥");
    feed.react(&message, &linus, &party);
    feed.react(&message, &linus, &fire);
    feed.react(&message, &owner, &fire);
    feed.clear_emoji(&message, &fire);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let caught_up: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;

    assert_eq!(
        caught_up.messages_in(&general.id)[0].reactions,
        [Reaction {
            emoji: party.in_message_syntax(),
            count: 1,
        }]
    );
    mcp.stop().await;
}
