//! `messages_history` (CLI `history`) with `around` a message id reads the conversation around
//! it: half the page before it, the message itself and what follows, oldest first, with the
//! cursors to read further either way.

use crate::support::{Feed, Guild, History, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let margaret = guild.member("margaret", &[]);
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let lines = [
        (&margaret, "Latency spike on eu-west-2."),
        (&grace, "Looking."),
        (&margaret, "One cache node is down."),
        (&grace, "Replacing it."),
        (&margaret, "Recovered."),
        (&grace, "Postmortem on Thursday."),
    ];
    let posted: Vec<String> = lines
        .iter()
        .map(|(author, text)| feed.post(Post::new(&incidents, author, *text)).id)
        .collect();
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let cli = store.cli();

    let around: History = cli.json(&["history", &incidents.id, "--around", &posted[2], "--limit", "4"]);
    assert_eq!(around.ids(), [&posted[0], &posted[1], &posted[2], &posted[3]]);
    assert_eq!(around.older_cursor, None, "nothing is stored before the first message");
    assert_eq!(around.newer_cursor.as_deref(), Some(posted[3].as_str()));

    let tight: History = cli.json(&["history", &incidents.id, "--around", &posted[3], "--limit", "3"]);
    assert_eq!(tight.ids(), [&posted[2], &posted[3], &posted[4]]);
    assert_eq!(tight.older_cursor.as_deref(), Some(posted[2].as_str()));
    assert_eq!(tight.newer_cursor.as_deref(), Some(posted[4].as_str()));
    let contents: Vec<&str> = tight.messages.iter().map(|message| message.content.as_str()).collect();
    assert_eq!(contents, [lines[2].1, lines[3].1, lines[4].1]);
}
