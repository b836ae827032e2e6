//! A deletion Discord answers 404 Unknown Message (someone deleted the bot's message first, or
//! an earlier attempt's answer was lost) is what was asked: `messages_delete` succeeds with the
//! message shown deleted, after exactly one request.

use crate::support::fake_discord::FakeDiscord;
use crate::support::{Feed, Guild, Message, Post, Store};

pub async fn spec() {
    let fake = FakeDiscord::start();
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    // In the store, never on the fake Discord: to it, the message is unknown.
    let mine = feed.post(Post::new(&general, &guild.bot, "Already gone on Discord."));
    let store = Store::for_owner(&owner).sending_to(&fake);
    store.play(&feed).await;

    let deleted: Message = store.cli().json(&["delete", &mine.id]);

    assert!(deleted.deleted);
    assert_eq!(deleted.message_id, mine.id);
    let requests: Vec<(String, String, u16)> = fake
        .requests()
        .into_iter()
        .map(|request| (request.method, request.path, request.status))
        .collect();
    assert_eq!(
        requests,
        [(
            "DELETE".to_string(),
            format!("/api/v10/channels/{}/messages/{}", general.id, mine.id),
            404
        )]
    );
    store
        .cli()
        .run(&["delete", &mine.id])
        .failure()
        .code(4)
        .stderr(format!("error: Message {} is already deleted\n", mine.id));
    assert_eq!(fake.requests().len(), 1, "no second request");
}
