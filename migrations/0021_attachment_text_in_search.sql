-- The text of kept text-like attachments in full-text search (issue 25, item 3).
--
-- The words of a kept text file (its first 64 KiB, decoded as UTF-8) are one more row of
-- `message_text` under its message's id, so a search finds the message by a word that is only
-- inside an attached .log or .txt. This table says which rows of the index are an
-- attachment's text, and whose: a hit on such a row is reported as a match in that
-- attachment. One row per attachment (an attachment is indexed once, when it is first kept,
-- or by the daemon's pass over files kept before this migration), never changed.
CREATE TABLE attachment_text (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    attachment_id TEXT NOT NULL UNIQUE,
    message_id TEXT NOT NULL,
    filename TEXT NOT NULL,
    -- The `message_text` row holding the text.
    text_rowid INTEGER NOT NULL UNIQUE,
    -- How many of the file's bytes were indexed (at most the bound).
    indexed_bytes INTEGER NOT NULL
);
CREATE TRIGGER attachment_text_append_only_update BEFORE UPDATE ON attachment_text BEGIN SELECT RAISE(ABORT, 'attachment_text is append-only'); END;
CREATE TRIGGER attachment_text_append_only_delete BEFORE DELETE ON attachment_text BEGIN SELECT RAISE(ABORT, 'attachment_text is append-only'); END;
