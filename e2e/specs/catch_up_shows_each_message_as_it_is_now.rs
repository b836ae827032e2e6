//! `messages_catch_up` shows each message as it is now: the current content after an edit with
//! Discord's edit time (a link preview is not an edit, but its embed is shown), deleted
//! messages flagged with their content kept (one by one or purged in bulk), the reactions
//! people still hold (custom emoji in message syntax), the reply target, whether it mentions
//! the owner, who wrote it, and the link that opens it in Discord.

use serde_json::json;

use crate::support::feed::Posted;
use crate::support::model::Embed;
use crate::support::{CaughtUp, Emoji, Feed, Guild, PageMessage, Post, Reaction, Store};

/// The message as the product should report it, from what the feed posted; `createdAt` is the
/// one value only the store knows.
fn reported(posted: &Posted, created_at: &str) -> PageMessage {
    PageMessage {
        message_id: posted.id.clone(),
        link: format!(
            "https://discord.com/channels/{}/{}/{}",
            posted.guild_id, posted.channel_id, posted.id
        ),
        author_id: posted.author.id.clone(),
        author_name: posted.author.global_name.clone(),
        content: posted.content.clone(),
        created_at: created_at.to_string(),
        sent_at: posted.sent_at.clone(),
        edited_at: None,
        deleted: false,
        reply_to_message_id: None,
        reactions: Vec::new(),
        mentions_owner: false,
        author_kind: "person".to_string(),
        attachments: Vec::new(),
        embeds: Vec::new(),
        stickers: Vec::new(),
        poll: None,
        forwarded: Vec::new(),
        pinned: false,
        event: None,
        components: Vec::new(),
        command: None,
        refers_to: None,
        voice_message: false,
    }
}

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let margaret = guild.member("margaret", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    let question = feed.post(Post::new(&general, &owner, "Can someone own the rollout?"));
    let answer = feed.post(
        Post::new(&general, &margaret, "I will, starting at 10%.").replying_to(&question),
    );
    let release = feed.post(Post::new(&general, &grace, "v2.4.0 is tagged. Notes to follow."));
    let typo = feed.post(Post::new(&general, &linus, "ignore this, wrong channel"));
    let spam = feed.post(Post::new(&general, &linus, "free nitro at example.invalid"));
    let more_spam = feed.post(Post::new(&general, &linus, "free nitro, last chance"));
    feed.unfurl(&question);
    let edit = feed.edit(
        &release,
        "v2.4.0 is tagged. Release notes: https://example.invalid/releases/2.4.0",
        10,
    );
    feed.delete(&typo);
    feed.delete_bulk(&[&spam, &more_spam]);
    let party = Emoji::unicode("🎉");
    let parrot = Emoji::custom("partyparrot");
    let eyes = Emoji::unicode("👀");
    feed.react(&release, &linus, &party);
    feed.react(&release, &margaret, &party);
    feed.react(&release, &owner, &party);
    feed.unreact(&release, &margaret, &party);
    feed.react(&release, &grace, &parrot);
    feed.react(&release, &linus, &eyes);
    feed.unreact(&release, &linus, &eyes);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let caught_up: CaughtUp = mcp
        .call_ok("messages_catch_up", json!({"since": feed.opened_at()}))
        .await;

    let messages = caught_up.messages_in(&general.id);
    let group = caught_up.channel(&general.id);
    assert_eq!(group.guild_id.as_deref(), Some(guild.id.as_str()), "the group states the guild once");
    assert_eq!(group.channel_name, general.name);
    assert_eq!(
        caught_up.ids_in(&general.id),
        [&question.id, &answer.id, &release.id, &typo.id, &spam.id, &more_spam.id]
    );
    assert_eq!(
        *messages[0],
        // The link preview added its embed; the content is not an edit.
        PageMessage {
            author_kind: "owner".to_string(),
            embeds: vec![Embed {
                kind: Some("link".into()),
                title: Some("Example".into()),
                description: None,
                url: Some("https://example.invalid/".into()),
                author: None,
                fields: Vec::new(),
                footer: None,
                provider: None,
                image: None,
            }],
            ..reported(&question, &messages[0].created_at)
        }
    );
    assert_eq!(
        *messages[1],
        PageMessage {
            reply_to_message_id: Some(question.id.clone()),
            mentions_owner: true,
            ..reported(&answer, &messages[1].created_at)
        }
    );
    assert_eq!(
        *messages[2],
        PageMessage {
            content: edit.content.clone(),
            edited_at: Some(edit.edited_at.clone()),
            reactions: vec![
                Reaction {
                    emoji: party.in_message_syntax(),
                    count: 2,
                },
                Reaction {
                    emoji: parrot.in_message_syntax(),
                    count: 1,
                },
            ],
            ..reported(&release, &messages[2].created_at)
        }
    );
    assert_eq!(
        *messages[3],
        PageMessage {
            deleted: true,
            ..reported(&typo, &messages[3].created_at)
        }
    );
    for (index, purged) in [(4, &spam), (5, &more_spam)] {
        assert_eq!(
            *messages[index],
            PageMessage {
                deleted: true,
                ..reported(purged, &messages[index].created_at)
            }
        );
    }
    mcp.stop().await;
}
