-- What Discord sends about a message beyond its text: attachments, embeds, stickers, a poll,
-- forwarded snapshots, the message type, flags and pinned state, as compact JSON in the shape
-- results show (fields at their default omitted). One row per version: the message as first
-- recorded, then each MESSAGE_UPDATE (or a later REST copy) that changed any of it, such as
-- the unfurl that adds a link's embed after the message, a pin, or a poll's counts. The newest
-- row of a message is its current state. A plain text message has no row at all.
CREATE TABLE message_extras (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    message_id TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    extras TEXT NOT NULL
);
CREATE INDEX message_extras_by_message ON message_extras (message_id, seq);
CREATE TRIGGER message_extras_append_only_update BEFORE UPDATE ON message_extras BEGIN SELECT RAISE(ABORT, 'message_extras is append-only'); END;
CREATE TRIGGER message_extras_append_only_delete BEFORE DELETE ON message_extras BEGIN SELECT RAISE(ABORT, 'message_extras is append-only'); END;
