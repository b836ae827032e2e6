//! `activity_digest` reports a window deterministically: per channel, busiest first, the
//! number of messages, the most active authors and the most-reacted messages (by the reactions
//! they have now); then the owner's mentions still unanswered and every open bookmark.

use serde_json::json;

use crate::support::{AuthorActivity, Digest, Emoji, Feed, Guild, Mentions, Post, Store};
use crate::support::feed::{Posted, User};

fn author(user: &User, messages: u64) -> AuthorActivity {
    AuthorActivity {
        author_id: user.id.clone(),
        author_name: user.global_name.clone(),
        messages,
    }
}

fn ids<'a>(messages: impl IntoIterator<Item = &'a crate::support::Message>) -> Vec<String> {
    messages.into_iter().map(|message| message.message_id.clone()).collect()
}

fn page_ids<'a>(messages: impl IntoIterator<Item = &'a crate::support::PageMessage>) -> Vec<String> {
    messages.into_iter().map(|message| message.message_id.clone()).collect()
}

fn posted(messages: &[&Posted]) -> Vec<String> {
    messages.iter().map(|message| message.id.clone()).collect()
}

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let margaret = guild.member("margaret", &[]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    guild.text_channel("random");
    let mut feed = Feed::joining(&guild);
    let standup = feed.post(Post::new(&general, &grace, "Standup in five."));
    let notes = feed.post(Post::new(&general, &grace, "Notes are in the doc."));
    let review = feed.post(
        Post::new(&general, &linus, format!("{} can you review the storage PR?", owner.mention()))
            .mentioning(&owner),
    );
    let benchmarks = feed.post(Post::new(&general, &grace, "Benchmarks attached: 3x faster."));
    let sign_off = feed.post(
        Post::new(&releases, &margaret, format!("{} sign off on v2.4?", owner.mention()))
            .mentioning(&owner),
    );
    feed.post(Post::new(&releases, &owner, "Signed off."));
    let tagged = feed.post(Post::new(&releases, &margaret, "v2.4.0 is tagged."));
    let party = Emoji::unicode("🎉");
    for user in [&linus, &owner, &margaret] {
        feed.react(&benchmarks, user, &party);
    }
    feed.react(&standup, &linus, &Emoji::unicode("👍"));
    feed.react(&notes, &linus, &party);
    feed.unreact(&notes, &linus, &party);
    feed.react(&tagged, &grace, &Emoji::custom("shipit"));
    let note = "review before Friday";
    feed.action("bookmarks_add", json!({"messageId": review.id, "note": note}));
    feed.action("bookmarks_add", json!({"messageId": tagged.id}));
    feed.action("bookmarks_resolve", json!({"messageId": tagged.id}));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let digest: Digest = mcp
        .call_ok("activity_digest", json!({"since": feed.opened_at()}))
        .await;

    assert_eq!(digest.since, feed.opened_at());
    assert_eq!(digest.total_messages, 7);
    let channels: Vec<(&str, &str, u64)> = digest
        .channels
        .iter()
        .map(|channel| (channel.channel_id.as_str(), channel.channel_name.as_str(), channel.messages))
        .collect();
    assert_eq!(
        channels,
        [
            (general.id.as_str(), general.name.as_str(), 4),
            (releases.id.as_str(), releases.name.as_str(), 3)
        ],
        "busiest first, quiet channels left out"
    );
    let (in_general, in_releases) = (&digest.channels[0], &digest.channels[1]);
    assert_eq!(in_general.top_authors, [author(&grace, 3), author(&linus, 1)]);
    assert_eq!(in_releases.top_authors, [author(&margaret, 2), author(&owner, 1)]);
    assert_eq!(
        page_ids(&in_general.most_reacted),
        posted(&[&benchmarks, &standup]),
        "most reactions first; a reaction taken back counts for nothing"
    );
    assert_eq!(page_ids(&in_releases.most_reacted), posted(&[&tagged]));
    assert_eq!(in_general.most_reacted[0].reactions.len(), 1);
    assert_eq!(in_general.most_reacted[0].reactions[0].count, 3);
    let mentions: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at()}))
        .await;
    assert_eq!(mentions.mentions.iter().map(|m| m.message_id.clone()).collect::<Vec<_>>(), posted(&[&review, &sign_off]), "both mention the owner");
    assert_eq!(
        ids(&digest.unanswered_mentions),
        posted(&[&review]),
        "the sign-off request was answered in its channel"
    );
    let open: Vec<(&str, Option<&str>)> = digest
        .open_bookmarks
        .iter()
        .map(|bookmark| (bookmark.message_id.as_str(), bookmark.note.as_deref()))
        .collect();
    assert_eq!(open, [(review.id.as_str(), Some(note))], "the resolved bookmark is not open");
    mcp.stop().await;
}
