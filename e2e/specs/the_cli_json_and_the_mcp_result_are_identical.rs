//! For the same input, `--json` on the CLI prints exactly the MCP tool's structured result:
//! the two are equal as JSON values for every reading tool, on a store with edits, deletions,
//! reactions, replies, mentions, an unreadable channel and bookmarks. Inputs that default to
//! "now" are given explicitly (from the store's own answers), so both surfaces ask the same.

use serde_json::json;

use crate::support::{CaughtUp, Emoji, Feed, Guild, Post, Store, micro_after};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let maintainers = guild.role("maintainers");
    let owner = guild.member("ada", &[&maintainers]);
    let grace = guild.member("grace", &[&maintainers]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    guild.channel_without_history("old-announcements");
    let rollout = guild.thread(&releases, "v2.4 rollout");
    let mut feed = Feed::joining(&guild);
    let question = feed.post(Post::new(&general, &owner, "Who owns the rollout?"));
    feed.post(Post::new(&general, &grace, "I do.").replying_to(&question));
    let review = feed.post(
        Post::new(&general, &linus, format!("{} review please?", owner.mention())).mentioning(&owner),
    );
    let tag = feed.post(Post::new(&releases, &grace, "v2.4.0 is tagged."));
    feed.post(
        Post::new(&rollout, &grace, format!("{} sign off before 50%?", maintainers.mention()))
            .mentioning_role(&maintainers),
    );
    let oops = feed.post(Post::new(&general, &linus, "wrong channel, sorry"));
    feed.action("bookmarks_add", json!({"messageId": review.id, "note": "review the storage PR"}));
    feed.action("bookmarks_add", json!({"messageId": tag.id}));
    feed.action(
        "schedules_add",
        json!({"channelId": releases.id, "content": "Freeze at noon.", "sendAt": "@now+1h"}),
    );
    feed.edit(&tag, "v2.4.0 is tagged. Notes: https://example.invalid/2.4.0", 3);
    feed.react(&tag, &linus, &Emoji::unicode("🎉"));
    feed.react(&tag, &owner, &Emoji::custom("shipit"));
    feed.delete(&oops);
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let since = feed.opened_at();
    let cli = store.cli();
    let mcp = store.mcp().await;
    let everything: CaughtUp = mcp.call_ok("messages_catch_up", json!({"since": since})).await;
    // After every arrival: the end of the digest's window.
    let until = micro_after(&everything.watermark);

    let cases = [
        ("channels_list", json!({"since": since}), vec!["channels", "list", "--since", &since]),
        ("messages_catch_up", json!({"since": since}), vec!["catch-up", "--since", &since]),
        (
            "messages_catch_up",
            json!({"since": since, "limit": 2, "channelId": general.id}),
            vec!["catch-up", "--since", &since, "--limit", "2", "--channel-id", &general.id],
        ),
        (
            "mentions_list",
            json!({"since": since, "limit": 5}),
            vec!["mentions", "list", "--since", &since, "--limit", "5"],
        ),
        ("bookmarks_list", json!({}), vec!["bookmarks", "list"]),
        ("schedules_list", json!({}), vec!["schedules", "list"]),
        (
            "schedules_list",
            json!({"status": "pending"}),
            vec!["schedules", "list", "--status", "pending"],
        ),
        (
            "messages_history",
            json!({"channelId": general.id}),
            vec!["history", &general.id],
        ),
        (
            "messages_history",
            json!({"channelId": general.id, "around": review.id, "limit": 2}),
            vec!["history", "--channel-id", &general.id, "--around", &review.id, "--limit", "2"],
        ),
        ("messages_search", json!({"query": "rollout"}), vec!["search", "rollout"]),
        (
            "messages_search",
            json!({
                "query": "tagged", "channelId": releases.id, "authorId": grace.id,
                "since": since, "until": until,
            }),
            vec![
                "search", "--query", "tagged", "--channel-id", &releases.id, "--author-id", &grace.id,
                "--since", &since, "--until", &until,
            ],
        ),
        (
            "mentions_awaiting_reply",
            json!({"since": since, "silenceMinutes": 0}),
            vec!["mentions", "awaiting-reply", "--since", &since, "--silence-minutes", "0"],
        ),
        ("activity_wait", json!({"after": since}), vec!["wait", "--after", &since]),
        (
            "activity_wait",
            json!({"after": since, "channelId": releases.id, "waitSeconds": 0}),
            vec!["wait", "--after", &since, "--channel-id", &releases.id, "--wait-seconds", "0"],
        ),
        (
            "activity_digest",
            json!({"since": since, "until": until}),
            vec!["digest", "--since", &since, "--until", &until],
        ),
    ];
    for (tool, arguments, command) in cases {
        let over_mcp = mcp.call(tool, arguments.clone()).await;
        let on_cli = cli.json_value(&command);
        assert_eq!(
            &on_cli,
            over_mcp.structured(),
            "`{}` and {tool} {arguments} differ",
            command.join(" ")
        );
    }
    mcp.stop().await;
}
