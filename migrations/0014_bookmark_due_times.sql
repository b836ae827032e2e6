-- When a bookmark is due: each setting or change of a bookmark's due time is an appended event.
-- A bookmark's due time is the newest of these events made since it was (last) bookmarked.
CREATE TABLE bookmark_due_events (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    due_at TEXT NOT NULL,
    source TEXT NOT NULL          -- cli | mcp
);
CREATE INDEX bookmark_due_events_by_message ON bookmark_due_events (message_id, seq);

CREATE TRIGGER bookmark_due_events_append_only_update BEFORE UPDATE ON bookmark_due_events BEGIN SELECT RAISE(ABORT, 'bookmark_due_events is append-only'); END;
CREATE TRIGGER bookmark_due_events_append_only_delete BEFORE DELETE ON bookmark_due_events BEGIN SELECT RAISE(ABORT, 'bookmark_due_events is append-only'); END;
