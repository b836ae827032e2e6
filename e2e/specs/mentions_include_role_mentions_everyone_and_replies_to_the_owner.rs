//! `mentions_list` lists, oldest first, every message that mentions the owner: directly,
//! through a role the owner holds, with @everyone or @here, or by replying to the owner. A
//! role the owner does not hold, a reply to someone else, a plain message and the owner's own
//! messages (even one that says @everyone) are not mentions. Mention tokens in the content read
//! as the names the store knows: `@Ada` for `<@id>`, `@maintainers` for `<@&id>`.

use serde_json::json;

use crate::support::{Feed, Guild, Mentions, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let maintainers = guild.role("maintainers");
    let designers = guild.role("designers");
    let owner = guild.member("ada", &[&maintainers]);
    let grace = guild.member("grace", &[&maintainers]);
    let linus = guild.member("linus", &[&designers]);
    let margaret = guild.member("margaret", &[]);
    let general = guild.text_channel("general");
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let owners_own = feed.post(Post::new(&general, &owner, "Reviewing the storage PR now."));
    let direct = feed.post(
        Post::new(&general, &linus, format!("{} could you review the WAL change?", owner.mention()))
            .mentioning(&owner),
    );
    let role = feed.post(
        Post::new(&general, &grace, format!("{} please sign off before 50%.", maintainers.mention()))
            .mentioning_role(&maintainers),
    );
    feed.post(
        Post::new(&general, &grace, format!("{} the new icons are in.", designers.mention()))
            .mentioning_role(&designers),
    );
    let here = feed.post(
        Post::new(&incidents, &margaret, "@here latency spike on eu-west, investigating.")
            .mentioning_everyone(),
    );
    let reply = feed.post(
        Post::new(&general, &margaret, "Thanks! Benchmarks are in the description.")
            .replying_to(&owners_own),
    );
    feed.post(Post::new(&general, &linus, "Agreed.").replying_to(&direct));
    feed.post(Post::new(&general, &grace, "Lunch at noon?"));
    feed.post(
        Post::new(&incidents, &owner, format!("@everyone {} postmortem at 3pm.", maintainers.mention()))
            .mentioning_everyone()
            .mentioning_role(&maintainers),
    );
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    let listed: Mentions = mcp
        .call_ok("mentions_list", json!({"since": feed.opened_at()}))
        .await;

    let ids: Vec<&str> = listed.mentions.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids, [&direct.id, &role.id, &here.id, &reply.id]);
    assert!(listed.mentions.iter().all(|mention| mention.mentions_owner));
    let contents: Vec<&str> = listed.mentions.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents,
        [
            format!("@{} could you review the WAL change?", owner.global_name).as_str(),
            format!("@{} please sign off before 50%.", maintainers.name).as_str(),
            here.content.as_str(),
            reply.content.as_str()
        ]
    );
    assert_ne!(direct.content, contents[0], "Discord's content held the token");
    assert_ne!(role.content, contents[1], "Discord's content held the token");
    assert_eq!(listed.mentions[3].reply_to_message_id.as_deref(), Some(owners_own.id.as_str()));
    assert_eq!(listed.next_cursor, None);
    mcp.stop().await;
}
