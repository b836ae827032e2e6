-- What the ingest daemon knows about its own listening: its connection history, how far each
-- channel is provably complete, and what it knows it missed. Append-only like the rest.

-- The daemon's connection history, one row per thing that happened to the connection:
--   identify  the daemon is about to IDENTIFY (a start, or serenity re-identifying after a
--             connection it could not resume): Discord allows 1000 a day, so restarts back
--             off by counting these;
--   ready     a new gateway session began (`session_id`);
--   resumed   a session was resumed: Discord replays what was missed;
--   alive     a periodic sign of life while connected;
--   stop      a clean stop: everything received was committed before this row.
-- `detail` holds the gateway URL for `identify` and the reason for `stop`.
CREATE TABLE gateway_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    session_id TEXT,
    detail TEXT
);
CREATE INDEX gateway_events_by_kind ON gateway_events (kind, seq);

-- A backfill of one channel that completed: every message Discord still has in the channel
-- with an id at or below `complete_through` is in the store. A channel's coverage is its
-- highest `complete_through`; the next backfill starts there, which provably covers whatever
-- the gateway delivered but was never committed (handlers run concurrently, so the newest
-- stored message says nothing about the ones below it).
CREATE TABLE channel_coverage (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    started_after INTEGER NOT NULL,     -- the snowflake the backfill started after
    complete_through INTEGER NOT NULL,  -- the snowflake it proved complete up to
    fetched INTEGER NOT NULL,           -- messages Discord returned
    stored INTEGER NOT NULL,            -- of which new to the store
    reason TEXT NOT NULL                -- start | reconnect | repair | joined
);
CREATE INDEX channel_coverage_by_channel ON channel_coverage (channel_id, complete_through);

-- What the store knows it is missing, said explicitly rather than silently:
--   kind 'downtime' (channel_id NULL: every channel): the daemon was not listening from
--        `from_at` to `until_at`; messages were backfilled, but deletions, intermediate edits
--        and reactions in that span cannot be recovered over REST;
--   kind 'messages': a backfill of `channel_id` after message `after_message_id` failed;
--        messages after it may be missing until a later backfill of the channel completes
--        past that point (which closes the gap);
--   kind 'event': an event Discord delivered could not be stored (`detail` says which).
CREATE TABLE coverage_gaps (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    kind TEXT NOT NULL,
    channel_id TEXT,
    from_at TEXT NOT NULL,
    until_at TEXT NOT NULL,
    after_message_id INTEGER,
    detail TEXT NOT NULL
);
CREATE INDEX coverage_gaps_by_channel ON coverage_gaps (channel_id, seq);

CREATE TRIGGER gateway_events_append_only_update BEFORE UPDATE ON gateway_events BEGIN SELECT RAISE(ABORT, 'gateway_events is append-only'); END;
CREATE TRIGGER gateway_events_append_only_delete BEFORE DELETE ON gateway_events BEGIN SELECT RAISE(ABORT, 'gateway_events is append-only'); END;
CREATE TRIGGER channel_coverage_append_only_update BEFORE UPDATE ON channel_coverage BEGIN SELECT RAISE(ABORT, 'channel_coverage is append-only'); END;
CREATE TRIGGER channel_coverage_append_only_delete BEFORE DELETE ON channel_coverage BEGIN SELECT RAISE(ABORT, 'channel_coverage is append-only'); END;
CREATE TRIGGER coverage_gaps_append_only_update BEFORE UPDATE ON coverage_gaps BEGIN SELECT RAISE(ABORT, 'coverage_gaps is append-only'); END;
CREATE TRIGGER coverage_gaps_append_only_delete BEFORE DELETE ON coverage_gaps BEGIN SELECT RAISE(ABORT, 'coverage_gaps is append-only'); END;
