//! The command line says every value an optional boolean takes over MCP: `search --pinned
//! false` reaches the search as "only messages not pinned" (not as the option left out, which
//! finds both), `--pinned true` and a bare `--pinned` as "only pinned ones", and the same for
//! `--mentions-owner false`.

use serde_json::json;

use crate::support::{Feed, Guild, Post, SearchResults, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let margaret = guild.member("margaret", &[]);
    let incidents = guild.text_channel("incidents");
    let mut feed = Feed::joining(&guild);
    let pinned = feed.post(
        Post::new(&incidents, &margaret, "Rollback runbook: revert the canary first")
            .with("pinned", json!(true)),
    );
    let unpinned = feed.post(Post::new(
        &incidents,
        &margaret,
        "The canary rollback took four minutes",
    ));
    let mention = feed.post(
        Post::new(
            &incidents,
            &margaret,
            format!("{} can you check the canary rollback?", owner.mention()),
        )
        .mentioning(&owner),
    );
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let cli = store.cli();
    let found = |args: &[&str]| -> Vec<String> {
        let mut command = vec!["search", "rollback"];
        command.extend_from_slice(args);
        let results: SearchResults = cli.json(&command);
        let mut ids: Vec<String> = results.sorted_ids().into_iter().map(str::to_string).collect();
        ids.sort();
        ids
    };
    let sorted = |ids: &[&str]| -> Vec<String> {
        let mut ids: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
        ids.sort();
        ids
    };

    assert_eq!(
        found(&[]),
        sorted(&[&pinned.id, &unpinned.id, &mention.id]),
        "without --pinned, both kinds"
    );
    assert_eq!(
        found(&["--pinned", "false"]),
        sorted(&[&unpinned.id, &mention.id]),
        "--pinned false: only messages not pinned"
    );
    assert_eq!(found(&["--pinned", "true"]), sorted(&[&pinned.id]));
    assert_eq!(found(&["--pinned"]), sorted(&[&pinned.id]), "a bare --pinned means true");
    assert_eq!(
        found(&["--mentions-owner", "false"]),
        sorted(&[&pinned.id, &unpinned.id]),
        "--mentions-owner false: only messages that do not mention the owner"
    );
    assert_eq!(found(&["--mentions-owner", "true"]), sorted(&[&mention.id]));

    cli.run(&["search", "rollback", "--pinned", "maybe"])
        .failure()
        .code(2)
        .stdout("")
        .stderr("error: `pinned` must be true or false; got \"maybe\"\n");
}
