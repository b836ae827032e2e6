-- History from before the store began: the import of each channel's recent past.
--
-- A channel first seen with messages begins at its `last_message_id` (channel_anchors); the
-- daemon then imports what lies below it, newest page first, back to a window (7 days by
-- default). Each page it stores appends one row here in the same transaction as the page's
-- messages, so a daemon killed mid-import resumes below the last page it stored and fetches no
-- stored page twice. A channel's import state is its newest row.
CREATE TABLE channel_imports (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    window_start INTEGER NOT NULL,  -- the lowest message id inside the window (0: all history)
    reached INTEGER NOT NULL,       -- every message with an id from here up to the beginning is stored
    exhausted INTEGER NOT NULL,     -- 1: Discord has nothing older than `reached`
    fetched INTEGER NOT NULL,       -- messages Discord answered on this page
    stored INTEGER NOT NULL         -- of those, messages the store did not have
);
CREATE INDEX channel_imports_by_channel ON channel_imports (channel_id, seq);

CREATE TRIGGER channel_imports_append_only_update BEFORE UPDATE ON channel_imports BEGIN SELECT RAISE(ABORT, 'channel_imports is append-only'); END;
CREATE TRIGGER channel_imports_append_only_delete BEFORE DELETE ON channel_imports BEGIN SELECT RAISE(ABORT, 'channel_imports is append-only'); END;

-- Imported history is history, not news. A message Discord sent more than a day before the
-- store began covering its channel is recorded with origin 'import'; the last day before that
-- point with origin 'import-recent', which, like a backfill, counts as new when it arrives.
-- The edit recorded with an 'import' message (the version REST shows, already edited) is
-- history with it (`imported` = 1). Every reader of news (catch-up, activity, mentions, read
-- markers, digests, new counts) leaves those rows out, so the arrival indexes that serve them
-- hold only news. Whether a row is news is fixed when it is written, so a cursor on the
-- arrival clock stays a position in one order: a constant filter cannot skip or repeat.
ALTER TABLE message_edits ADD COLUMN imported INTEGER NOT NULL DEFAULT 0;

DROP INDEX messages_by_arrival;
CREATE INDEX messages_by_arrival ON messages (created_at, channel_id) WHERE origin <> 'import';
DROP INDEX message_edits_by_arrival;
CREATE INDEX message_edits_by_arrival ON message_edits (created_at, channel_id) WHERE imported = 0;
