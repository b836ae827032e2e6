//! `activity_wait` (CLI `wait`) counts, per channel, the new messages, edits, deletions and
//! reaction events that arrived after the cutoff, each kind apart, and only channels where
//! something happened.

use crate::support::{Activity, ChannelActivity, Emoji, Feed, Guild, Post, Store};

pub async fn spec() {
    let mut guild = Guild::new("Lighthouse Labs");
    let owner = guild.member("ada", &[]);
    let grace = guild.member("grace", &[]);
    let linus = guild.member("linus", &[]);
    let general = guild.text_channel("general");
    let releases = guild.announcement_channel("releases");
    let random = guild.text_channel("random");
    let mut feed = Feed::joining(&guild);
    let plan = feed.post(Post::new(&general, &grace, "Release at 5pm."));
    let typo = feed.post(Post::new(&general, &linus, "wrong chanel"));
    feed.post(Post::new(&random, &linus, "Lunch at noon?"));
    let store = Store::for_owner(&owner);
    store.play(&feed).await;
    let cli = store.cli();
    let start: Activity = cli.json(&["wait"]);
    assert_eq!(start.total, 0, "{start:#?}");

    let mut later = Feed::new();
    later.post(Post::new(&general, &grace, "Release moved to 6pm."));
    later.edit(&plan, "Release at 6pm.", 5);
    later.delete(&typo);
    let party = Emoji::unicode("🎉");
    later.react(&plan, &linus, &party);
    later.react(&plan, &owner, &party);
    later.unreact(&plan, &linus, &party);
    later.post(Post::new(&releases, &grace, "v2.4.1 is tagged."));
    store.play(&later).await;
    let activity: Activity = cli.json(&["wait", "--after", &start.cutoff]);

    assert_eq!(activity.total, 7);
    assert_eq!(activity.channels.len(), 2, "only channels with news: {activity:#?}");
    assert_eq!(
        activity.channel(&general.id),
        &ChannelActivity {
            channel_id: general.id.clone(),
            channel_name: general.name.clone(),
            messages: 1,
            edits: 1,
            deletions: 1,
            reactions: 3,
        }
    );
    assert_eq!(
        activity.channel(&releases.id),
        &ChannelActivity {
            channel_id: releases.id.clone(),
            channel_name: releases.name.clone(),
            messages: 1,
            edits: 0,
            deletions: 0,
            reactions: 0,
        }
    );
    let only_releases: Activity =
        cli.json(&["wait", "--after", &start.cutoff, "--channel-id", &releases.id]);
    assert_eq!(only_releases.total, 1);
    assert_eq!(only_releases.channels, [activity.channel(&releases.id).clone()]);
    let quiet: Activity = cli.json(&["wait", "--after", &activity.cutoff]);
    assert_eq!((quiet.total, quiet.channels.len()), (0, 0), "{quiet:#?}");
}
