//! `messages_catch_up` never shows messages of a channel the bot cannot read, even when the
//! store holds some: the channel is listed under `skippedChannels` with the reason, in the
//! owner's words.

use serde_json::json;

use crate::support::{CaughtUp, Feed, Guild, Post, SkippedChannel, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let maintainers = guild.role("maintainers");
    let owner = guild.member("ada", &[&maintainers]);
    let grace = guild.member("grace", &[&maintainers]);
    let general = guild.text_channel("general");
    let private = guild.channel_hidden_from_the_bot("maintainers-only", &maintainers);
    let archive = guild.channel_without_history("old-announcements");
    let mut feed = Feed::joining(&guild);
    let readable = feed.post(Post::new(&general, &grace, "Release train leaves at noon."));
    feed.post(Post::new(&private, &grace, "Rotating the signing keys tonight."));
    feed.post(Post::new(&archive, &grace, "This channel is archived; see #general."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let caught_up: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;

    assert_eq!(caught_up.message_ids(), [&readable.id]);
    assert_eq!(caught_up.ids_in(&private.id), Vec::<&str>::new());
    assert_eq!(caught_up.ids_in(&archive.id), Vec::<&str>::new());
    let mut skipped = caught_up.skipped_channels.clone();
    skipped.sort_by(|a, b| a.channel_id.cmp(&b.channel_id));
    assert_eq!(
        skipped,
        [
            SkippedChannel {
                channel_id: private.id.clone(),
                channel_name: private.name.clone(),
                reason: "the bot cannot view this channel (View Channel is denied)".to_string(),
            },
            SkippedChannel {
                channel_id: archive.id.clone(),
                channel_name: archive.name.clone(),
                reason: "the bot cannot read this channel's history (Read Message History is denied)"
                    .to_string(),
            },
        ]
    );
    mcp.stop().await;
}
