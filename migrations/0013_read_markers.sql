-- The owner's read markers: "read through this instant" for a channel, on the store's arrival
-- clock. Append-only like every owner action; a channel's marker is its newest row, so marking
-- an earlier instant later moves the marker back (what was read becomes unread again).
CREATE TABLE read_markers (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    read_through TEXT NOT NULL,   -- an arrival instant: messages at or before it are read
    source TEXT NOT NULL          -- cli | mcp
);
CREATE INDEX read_markers_by_channel ON read_markers (channel_id, seq);

CREATE TRIGGER read_markers_append_only_update BEFORE UPDATE ON read_markers BEGIN SELECT RAISE(ABORT, 'read_markers is append-only'); END;
CREATE TRIGGER read_markers_append_only_delete BEFORE DELETE ON read_markers BEGIN SELECT RAISE(ABORT, 'read_markers is append-only'); END;
