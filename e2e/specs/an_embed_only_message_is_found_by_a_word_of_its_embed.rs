//! A CI webhook's post is only an embed (no text): `messages_search` finds it by a word of the
//! embed's title or of a field, the result carries the embed, and the CLI shows the match, and
//! in catch-up `[embed: <title>]` rather than a blank line.

use serde_json::json;

use crate::support::{Feed, Guild, Post, SearchResults, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let ci_bot = guild.member("lighthouse-ci", &[]);
    let ci = guild.text_channel("ci");
    let mut feed = Feed::joining(&guild);
    let embed = json!({
        "type": "rich", "title": "Build #4521 failed", "url": "https://ci.example/builds/4521",
        "description": "lighthouse-api: 3 tests failed on main", "color": 15158332,
        "author": {"name": "Lighthouse CI"},
        "fields": [{"name": "Failing", "value": "test_rollout_gate", "inline": false}],
        "footer": {"text": "ci.example"}
    });
    let failed = feed.post(
        Post::new(&ci, &ci_bot, "")
            .with("webhook_id", json!(ci_bot.id))
            .with("embeds", json!([embed])),
    );
    feed.post(Post::new(&ci, &owner, "Looking at the rollout gate now."));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let mcp = store.mcp().await;

    for word in ["4521", "test_rollout_gate"] {
        let found: SearchResults = mcp
            .call_ok("messages_search", json!({"query": word}))
            .await;
        assert_eq!(found.sorted_ids(), vec![failed.id.as_str()], "{word}");
        let message = &found.results[0].message;
        assert_eq!(message.content, "");
        assert_eq!(message.embeds.len(), 1);
        assert_eq!(message.embeds[0].title.as_deref(), Some("Build #4521 failed"));
        assert_eq!(
            message.embeds[0].fields[0].value, "test_rollout_gate",
            "the field is shown as well as searched"
        );
    }
    let found: SearchResults = mcp
        .call_ok("messages_search", json!({"query": "failed", "has": "embed"}))
        .await;
    assert_eq!(found.sorted_ids(), vec![failed.id.as_str()]);
    let text = |args: &[&str]| {
        let assert = store.cli().run(args).success();
        String::from_utf8_lossy(&assert.get_output().stdout).into_owned()
    };
    let searched = text(&["search", "4521"]);
    assert!(searched.contains("Build #[4521] failed"), "{searched}");
    let caught_up = text(&["catch-up", "--since", "2000-01-01T00:00:00Z"]);
    assert!(
        caught_up.contains("[embed: Lighthouse CI — Build #4521 failed — "),
        "{caught_up}"
    );
    mcp.stop().await;
}
