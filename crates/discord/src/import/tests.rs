use discord_manager_vocabulary::instant::Instant;
use discord_manager_vocabulary::snowflake::snowflake_at;

use super::*;

/// A channel first seen with `last` as its newest message.
fn began_at(last: u64) -> ChannelBeginning {
    ChannelBeginning::of(last + 9_999, Some(last))
}

fn state(reached: u64, window_start: u64, exhausted: bool) -> ImportState {
    ImportState {
        channel_id: "1".parse().unwrap(),
        window_start,
        reached,
        exhausted,
        pages: 1,
        fetched: 100,
        stored: 100,
        last_page_at: Instant::parse("2026-12-01T20:00:00Z").unwrap(),
    }
}

/// A snowflake minted at an instant (sequence bits 0).
fn minted(at: &str) -> u64 {
    snowflake_at(Instant::parse(at).unwrap(), 0)
}

#[test]
fn import_window_reads_days_zero_and_all_and_refuses_anything_else() {
    assert_eq!(ImportWindow::parse("7"), Some(ImportWindow::Days(7)));
    assert_eq!(ImportWindow::parse(" 30 "), Some(ImportWindow::Days(30)));
    assert_eq!(ImportWindow::parse("0"), Some(ImportWindow::Off));
    assert_eq!(ImportWindow::parse("all"), Some(ImportWindow::All));
    assert_eq!(ImportWindow::parse("ALL"), Some(ImportWindow::All));
    assert_eq!(
        ImportWindow::parse("36500"),
        Some(ImportWindow::Days(36_500))
    );
    for refused in ["36501", "-1", "1.5", "week", ""] {
        assert_eq!(ImportWindow::parse(refused), None, "{refused:?}");
    }
}

#[test]
fn plan_first_fetches_the_page_below_and_including_the_channels_beginning() {
    let last = minted("2026-12-01T12:00:00Z") + 77;
    assert_eq!(
        plan(began_at(last), None, ImportWindow::Days(7)),
        ImportPlan::Fetch {
            before: last + 1,
            window_start: minted("2026-11-24T12:00:00Z"),
        }
    );
    assert_eq!(
        plan(began_at(last), None, ImportWindow::All),
        ImportPlan::Fetch {
            before: last + 1,
            window_start: 0
        }
    );
    assert_eq!(
        plan(began_at(last), None, ImportWindow::Off),
        ImportPlan::Done
    );
    // A channel begun at its own id has no message below its beginning.
    assert_eq!(
        plan(ChannelBeginning::of(last, None), None, ImportWindow::All),
        ImportPlan::Done
    );
}

#[test]
fn plan_resumes_below_the_last_stored_page_and_stops_at_the_windows_edge() {
    let last = minted("2026-12-01T12:00:00Z");
    let a_day_earlier = minted("2026-11-30T12:00:00Z");
    let window_start = minted("2026-11-24T12:00:00Z");
    let resumed = plan(
        began_at(last),
        Some(&state(a_day_earlier, window_start, false)),
        ImportWindow::Days(7),
    );
    assert_eq!(
        resumed,
        ImportPlan::Fetch {
            before: a_day_earlier,
            window_start
        }
    );
    // Reached one id above the window's first: one message may remain below it.
    assert_eq!(
        plan(
            began_at(last),
            Some(&state(window_start + 1, window_start, false)),
            ImportWindow::Days(7)
        ),
        ImportPlan::Fetch {
            before: window_start + 1,
            window_start
        }
    );
    // Reached the window's first id: done.
    assert_eq!(
        plan(
            began_at(last),
            Some(&state(window_start, window_start, false)),
            ImportWindow::Days(7)
        ),
        ImportPlan::Done
    );
    // A wider window later goes on from there; Discord having nothing older ends it for good.
    assert_eq!(
        plan(
            began_at(last),
            Some(&state(window_start, window_start, false)),
            ImportWindow::Days(30)
        ),
        ImportPlan::Fetch {
            before: window_start,
            window_start: minted("2026-11-01T12:00:00Z")
        }
    );
    assert_eq!(
        plan(
            began_at(last),
            Some(&state(last - 5, window_start, true)),
            ImportWindow::All
        ),
        ImportPlan::Done
    );
}

#[test]
fn a_page_keeps_what_is_inside_the_window_on_both_sides_of_its_edge() {
    let window_start = minted("2026-11-24T12:00:00Z");
    let before = minted("2026-12-04T12:00:00Z");
    // A full page reaching one id below the window: that one is left out, the edge is kept.
    let mut ids: Vec<u64> = (0..98).map(|n| window_start + 1_000 + n).collect();
    ids.push(window_start);
    ids.push(window_start - 1);
    let (step, kept) = step_after_page(ChannelId::new(5), before, window_start, &ids);
    assert!(kept.contains(&window_start));
    assert!(!kept.contains(&(window_start - 1)));
    assert_eq!(kept.len(), 99);
    assert_eq!(step.reached, window_start);
    assert!(
        !step.exhausted,
        "older messages exist: a wider window may want them"
    );
    assert_eq!(step.fetched, 100);
    // A full page inside the window: go on below its lowest.
    let ids: Vec<u64> = (0..100).map(|n| window_start + 500 + n).collect();
    let (step, kept) = step_after_page(ChannelId::new(5), before, window_start, &ids);
    assert_eq!(
        (step.reached, step.exhausted, kept.len()),
        (window_start + 500, false, 100)
    );
    // A short page inside the window: Discord has nothing older.
    let (step, _) = step_after_page(ChannelId::new(5), before, window_start, &[window_start + 3]);
    assert_eq!((step.reached, step.exhausted), (window_start + 3, true));
    let (step, kept) = step_after_page(ChannelId::new(5), before, 0, &[]);
    assert_eq!(
        (step.reached, step.exhausted, kept),
        (before, true, Vec::new())
    );
}

#[test]
fn news_starts_one_day_before_discords_clock_at_first_sight_not_before_the_newest_message() {
    // A quiet channel: its newest message is two days older than the daemon's first sight.
    let last = minted("2026-12-01T12:00:00Z") + 4_000;
    let seen = Instant::parse("2026-12-03T12:00:00Z").unwrap();
    assert_eq!(
        news_start(last, Some(seen), 0),
        minted("2026-12-02T12:00:00Z")
    );
    assert!(
        last < news_start(last, Some(seen), 0),
        "its newest message is history"
    );
    // The host ran 3 s ahead of Discord's `Date` header: Discord's clock decides.
    assert_eq!(
        news_start(last, Some(seen), 3_000),
        minted("2026-12-02T11:59:57Z")
    );
    // Without a record of first sight, the beginning in Discord's ids.
    assert_eq!(news_start(last, None, 0), minted("2026-11-30T12:00:00Z"));
    assert_eq!(
        discord_manager_vocabulary::snowflake::minted_at(minted("2026-11-30T12:00:00Z")),
        Instant::parse("2026-11-30T12:00:00Z").unwrap()
    );
    // A window reaching before Discord's epoch is everything.
    assert_eq!(days_before(last, 36_500), 0);
}
