-- Coverage that never trusts the host's clock.
--
-- Where the store's record of a channel begins, as an id Discord itself returned: the
-- channel's `last_message_id` when the daemon first saw it, or (a channel without messages
-- then, or first seen when it was created) the channel's own id minus one, since every message
-- of a channel has an id at or above the channel's. A channel never backfilled is backfilled
-- from here; the first sighting wins (the unique key), so a crash before the first backfill
-- does not move the beginning past what was posted while the daemon was down.
CREATE TABLE channel_anchors (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL UNIQUE,
    after_message_id INTEGER NOT NULL,
    source TEXT NOT NULL                -- last-message-id | channel-id
);
CREATE TRIGGER channel_anchors_append_only_update BEFORE UPDATE ON channel_anchors BEGIN SELECT RAISE(ABORT, 'channel_anchors is append-only'); END;
CREATE TRIGGER channel_anchors_append_only_delete BEFORE DELETE ON channel_anchors BEGIN SELECT RAISE(ABORT, 'channel_anchors is append-only'); END;

-- Readings of Discord's clock (the `Date` header of a REST answer, whole seconds) beside the
-- host's clock when the answer arrived: `status` reports the latest offset.
CREATE TABLE discord_clock_readings (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    discord_at TEXT NOT NULL,
    host_at TEXT NOT NULL,
    host_ahead_ms INTEGER NOT NULL      -- host_at minus discord_at
);
CREATE TRIGGER discord_clock_readings_append_only_update BEFORE UPDATE ON discord_clock_readings BEGIN SELECT RAISE(ABORT, 'discord_clock_readings is append-only'); END;
CREATE TRIGGER discord_clock_readings_append_only_delete BEFORE DELETE ON discord_clock_readings BEGIN SELECT RAISE(ABORT, 'discord_clock_readings is append-only'); END;
