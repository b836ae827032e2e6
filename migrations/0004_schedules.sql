-- Scheduled messages: what the owner asked to send later, and everything that happened to it.
--
-- A schedule is written once when the owner adds it; every later state change (an attempt to
-- send it, a failed attempt that will be retried, the outcome, a cancellation) is an appended
-- event. Its status is derived: cancelled, sent or failed once such an event exists (those are
-- final), pending otherwise. Both tables are append-only.

CREATE TABLE schedules (
    schedule_id INTEGER PRIMARY KEY,  -- never reused: rows are never deleted
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    content TEXT NOT NULL,
    reply_to_message_id TEXT,
    send_at TEXT NOT NULL,            -- when the owner wants it sent (ISO-8601 UTC)
    nonce TEXT NOT NULL UNIQUE,       -- Discord's nonce, the same on every attempt
    source TEXT NOT NULL              -- cli | mcp | seed
);
CREATE INDEX schedules_by_send_at ON schedules (send_at);

CREATE TABLE schedule_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    schedule_id INTEGER NOT NULL REFERENCES schedules (schedule_id),
    kind TEXT NOT NULL,               -- attempt | retry | sent | failed | cancelled
    attempt INTEGER,                  -- attempt, retry: which attempt (1 is the first)
    nonce TEXT,                       -- attempt: the nonce the request carried
    message_id TEXT,                  -- sent: the message Discord created
    reason TEXT,                      -- retry, failed: why, in the owner's words
    source TEXT                       -- cancelled: cli | mcp
);
CREATE INDEX schedule_events_by_schedule ON schedule_events (schedule_id, seq);

CREATE TRIGGER schedules_append_only_update BEFORE UPDATE ON schedules BEGIN SELECT RAISE(ABORT, 'schedules is append-only'); END;
CREATE TRIGGER schedules_append_only_delete BEFORE DELETE ON schedules BEGIN SELECT RAISE(ABORT, 'schedules is append-only'); END;
CREATE TRIGGER schedule_events_append_only_update BEFORE UPDATE ON schedule_events BEGIN SELECT RAISE(ABORT, 'schedule_events is append-only'); END;
CREATE TRIGGER schedule_events_append_only_delete BEFORE DELETE ON schedule_events BEGIN SELECT RAISE(ABORT, 'schedule_events is append-only'); END;
