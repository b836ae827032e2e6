//! Every history table refuses an update and a deletion, filled through the real recorders
//! and the owner's capabilities (which is why this test lives in the core crate, not beside
//! the store's triggers).

use discord_manager_store::testing::{HISTORY_TABLES, connection};
use discord_manager_store::{
    ChannelBeginning, DiscordClockReading, GapKind, GatewayEventKind, NewCoverage, NewGap, PollVote,
};
use discord_manager_vocabulary::instant::Instant;

use discord_manager_playback::world::World;

use crate::test_fixtures::WorldContext;

/// Writes at least one row into every history table, through the real recorders.
fn fill_every_table() -> World {
    use serde_json::json;
    let world = World::new();
    let channel = world.channel("general");
    let message = world.post(
        channel,
        "7",
        "hi",
        json!({"mention_roles": [world.owner_role_id], "pinned": true, "attachments": [{
            "id": "1600000000000000001", "filename": "eu-west-2-latency.png", "size": 5,
            "url": "https://cdn.discordapp.com/attachments/1/1600000000000000001/a.png?ex=1",
            "proxy_url": "https://media.discordapp.net/attachments/1/1600000000000000001/a.png",
            "content_type": "image/png"}]}),
    );
    world.edit(channel, message, "hi!", "2026-11-29T12:00:00Z");
    world.react("MESSAGE_REACTION_ADD", channel, message, "8", "👍");
    let input = crate::business::bookmarks::add::AddBookmark {
        message_id: discord_manager_playback::world::id(message),
        note: None,
        due_at: Some(Instant::now()),
    };
    crate::business::bookmarks::add::add_bookmark(&world.store, input, &world.context()).unwrap();
    let dismissal = crate::business::mentions::dismiss::DismissMention {
        message_id: discord_manager_playback::world::id(message),
        note: None,
    };
    crate::business::mentions::dismiss::dismiss_mention(&world.store, dismissal, &world.context())
        .unwrap();
    let marker = crate::business::channels::mark_read::MarkRead::default();
    crate::business::channels::mark_read::mark_read(&world.store, marker, &world.context())
        .unwrap();
    world.delete(channel, message);
    // The daemon's own record (written by `ingest`, not by recorders).
    world
        .store
        .write(|writer| {
            writer.record_assistant_send(&channel)?;
            writer.record_assistant_reaction(&channel, &message)?;
            writer.record_gateway_event(GatewayEventKind::Alive, None, None)?;
            writer.record_coverage(&NewCoverage {
                channel_id: channel,
                started_after: 1,
                complete_through: 2,
                fetched: 0,
                stored: 0,
                reason: "start",
            })?;
            writer.record_gap(&NewGap {
                kind: GapKind::Event,
                channel_id: None,
                from_at: Instant::now(),
                until_at: Instant::now(),
                after_message_id: None,
                detail: "test".into(),
            })?;
            writer.record_channel_beginning(&channel, ChannelBeginning::of(9, Some(5)))?;
            writer.record_discord_clock(DiscordClockReading {
                discord_at: Instant::now(),
                host_at: Instant::now(),
            })?;
            writer.record_poll_vote(&PollVote {
                message_id: discord_manager_playback::world::id("7"),
                channel_id: channel,
                user_id: discord_manager_playback::world::id("8"),
                answer_id: 1,
                voted: true,
            })?;
            writer.record_attachment_outcome(
                &discord_manager_playback::world::id("1600000000000000001"),
                &discord_manager_store::AttachmentOutcome::Skipped {
                    reason: "too large".into(),
                },
            )?;
            writer.index_attachment_text(
                &discord_manager_store::AttachmentRecord {
                    seq: 1,
                    attachment_id: discord_manager_playback::world::id("1600000000000000001"),
                    message_id: discord_manager_playback::world::id("7"),
                    channel_id: channel,
                    filename: "a.log".into(),
                    content_type: None,
                    size: 4,
                    url: "https://cdn.discordapp.com/attachments/1/1600000000000000001/a.log"
                        .into(),
                    failed_attempts: 0,
                },
                "text",
                4,
            )?;
            writer.record_import_step(&discord_manager_store::NewImportStep {
                channel_id: channel,
                window_start: 1,
                reached: 3,
                exhausted: false,
                fetched: 100,
                stored: 100,
            })?;
            Ok(())
        })
        .unwrap();
    use crate::business::schedules::add::{AddSchedule, add_schedule_at};
    use crate::business::schedules::cancel::{CancelSchedule, cancel_schedule};
    let schedule = AddSchedule {
        channel_id: discord_manager_playback::world::id(channel),
        content: "later".into(),
        send_at: Instant::now().plus_seconds(3600),
        reply_to_message_id: None,
    };
    let schedule = add_schedule_at(
        &world.store,
        schedule,
        &world.sending_context(),
        discord_manager_vocabulary::instant::Instant::now(),
    )
    .unwrap();
    let cancel = CancelSchedule {
        schedule_id: schedule.schedule_id,
    };
    cancel_schedule(&world.store, cancel, &world.context()).unwrap();
    world
        .store
        .record_backup(&discord_manager_store::BackupSummary {
            path: std::path::PathBuf::from("/backups/store.sqlite3"),
            messages: 1,
            bytes: 4096,
        })
        .unwrap();
    world
        .store
        .write(|writer| writer.meaning_model("{\"id\":\"a model\"}"))
        .unwrap();
    world
        .store
        .write(|writer| writer.record_payload_reading(1))
        .unwrap();
    world
        .store
        .write(|writer| {
            let message: discord_manager_vocabulary::snowflake::MessageId =
                "11".parse().expect("an id");
            writer.record_push_delivery("a session", &message, "mention")?;
            writer.record_push_coverage("a session", Instant::now())
        })
        .unwrap();
    world
}

#[test]
fn every_history_table_rejects_update_and_delete() {
    let world = fill_every_table();
    let connection = connection(&world.store);
    for table in HISTORY_TABLES {
        // A row the table holds, by its first column (a table WITHOUT ROWID has no rowid, and
        // one that is not stamped by the clock has no created_at).
        let column: String = connection
            .query_row(
                &format!("SELECT name FROM pragma_table_info('{table}') WHERE cid = 0"),
                [],
                |row| row.get(0),
            )
            .unwrap();
        let newest = format!("WHERE {column} = (SELECT max({column}) FROM {table})");
        let held: i64 = connection
            .query_row(
                &format!("SELECT count(*) FROM {table} {newest}"),
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert!(held > 0, "{table} holds a row to try");
        let error = connection
            .execute(
                &format!("UPDATE {table} SET {column} = {column} {newest}"),
                [],
            )
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("{table} is append-only")),
            "{table}: {error}"
        );
        let error = connection
            .execute(&format!("DELETE FROM {table} {newest}"), [])
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains(&format!("{table} is append-only")),
            "{table}: {error}"
        );
    }
}
