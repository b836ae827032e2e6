-- Full-text search and channel history.

-- Every version of every message's content (the original and each edit), for FTS5 search.
-- A virtual table cannot carry triggers, so its append-only rule is kept by the store, the
-- only writer: rows are inserted alongside the message or edit they index, never changed.
CREATE VIRTUAL TABLE message_text USING fts5(
    content,
    message_id UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- History reads a channel in Discord's order (its timestamp, then the id).
CREATE INDEX messages_by_channel_sent ON messages (channel_id, sent_at, message_id);
-- "Did the owner speak in this channel after that?"
CREATE INDEX messages_by_channel_author_sent ON messages (channel_id, author_id, sent_at);
