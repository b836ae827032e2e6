-- The text of kept text files in an FTS5 index of its own (issue 40).
--
-- Since 0021 a kept text file's words were one more row of `message_text`, so FTS5 ranked
-- every matching file with every search: a word that fills log files cost about 35 µs a
-- kept file of 64 KiB, 0.6 s with the cache full. Apart, the files' index is read newest
-- first and only as far as a search needs (`crates/store/src/store/search.rs`), and the
-- messages' index holds messages only.
--
-- The rows move with their rowids, so `attachment_text.text_rowid` (append-only, never
-- rewritten) names the same text, now in `file_text`; a file kept later gets the next rowid
-- there, so rowid order stays the order files were indexed in.
CREATE VIRTUAL TABLE file_text USING fts5(
    content,
    message_id UNINDEXED,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO file_text (rowid, content, message_id)
    SELECT rowid, content, message_id FROM message_text
    WHERE rowid IN (SELECT text_rowid FROM attachment_text);
DELETE FROM message_text WHERE rowid IN (SELECT text_rowid FROM attachment_text);
-- Which files were indexed since an instant: where the keyword reader's walk of the files'
-- index starts.
CREATE INDEX attachment_text_by_time ON attachment_text (created_at, text_rowid);
