//! With no owner configured (no `DISCORD_OWNER_ID`, and none learned from Discord), mentions
//! cannot be found: both surfaces refuse with the same message naming the variable to set,
//! and the CLI exits with the configuration error code.

use serde_json::json;

use crate::support::{Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let mut feed = Feed::joining(&guild);
    feed.post(Post::new(&general, &linus, format!("{} ping", owner.mention())).mentioning(&owner));
    let store = Store::without_owner();
    store.play(&feed).await;
    let wanted = "Mentions need the owner's Discord user id: set DISCORD_OWNER_ID";
    let mcp = store.mcp().await;

    let refusal = mcp
        .call_err("mentions_list", json!({"since": feed.opened_at()}))
        .await;

    assert_eq!(refusal, wanted);
    store
        .cli()
        .run(&["mentions", "list", "--since", &feed.opened_at()])
        .code(6)
        .stdout("")
        .stderr(format!("error: {wanted}\n"));
    mcp.stop().await;
}
