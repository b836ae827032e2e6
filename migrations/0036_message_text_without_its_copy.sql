-- The full-text index of the messages' words keeps no copy of their text. Until now FTS5 kept
-- every indexed text a second time in `message_text_content` (114 bytes a message at 1M, for
-- snippets and the `message_id` column), though a message's own text is in `messages`. Now the
-- index reads its rows from `message_text_versions` (FTS5's external content):
-- - a message's own text is its `messages` row, under the message's `seq`;
-- - every later text (an edit's, and the words of its attachments, embeds, stickers, poll and
--   forwards, which are derived and kept nowhere else) is a row of `version_texts`, under a
--   negative number (-1, -2, … in the order written), so the two never meet.
-- FTS5 reads a row by its number alone (`text_rowid = ?`), which each arm of the view answers
-- from its table's own key. Both tables are append-only, as an external content must be.
-- `cjk_text` keeps its rows under the same numbers as `message_text`'s. The file is one
-- transaction: a process stopped during it leaves the store as it was before it.

CREATE TABLE version_texts (
    text_rowid INTEGER PRIMARY KEY,   -- negative: -1, -2, … in the order written
    message_id INTEGER NOT NULL,
    content TEXT NOT NULL
);
CREATE TRIGGER version_texts_append_only_update BEFORE UPDATE ON version_texts BEGIN SELECT RAISE(ABORT, 'version_texts is append-only'); END;
CREATE TRIGGER version_texts_append_only_delete BEFORE DELETE ON version_texts BEGIN SELECT RAISE(ABORT, 'version_texts is append-only'); END;

CREATE VIEW message_text_versions (text_rowid, content, message_id) AS
    SELECT seq, content, message_id FROM messages WHERE content <> ''
    UNION ALL
    SELECT text_rowid, content, message_id FROM version_texts;

-- Each row of the old index gets its new number: the first row of a message holding the
-- message's own text is that text (under the message's `seq`); every other row is a later
-- text, numbered down from -1 in the order it was written.
CREATE TEMP TABLE text_originals (old_rowid INTEGER PRIMARY KEY, seq INTEGER NOT NULL);
INSERT INTO text_originals (old_rowid, seq)
    SELECT id, seq FROM (
        SELECT t.id, m.seq, row_number() OVER (PARTITION BY m.seq ORDER BY t.id) AS nth
        FROM message_text_content AS t
        JOIN messages AS m ON m.message_id = t.c1 AND m.content = t.c0)
    WHERE nth = 1;
CREATE TEMP TABLE text_moves (old_rowid INTEGER PRIMARY KEY, new_rowid INTEGER NOT NULL UNIQUE);
INSERT INTO text_moves (old_rowid, new_rowid)
    SELECT old_rowid, seq FROM text_originals;
INSERT INTO text_moves (old_rowid, new_rowid)
    SELECT id, -row_number() OVER (ORDER BY id) FROM message_text_content
    WHERE id NOT IN (SELECT old_rowid FROM text_originals);
INSERT INTO version_texts (text_rowid, message_id, content)
    SELECT moves.new_rowid, t.c1, t.c0
    FROM text_moves AS moves
    JOIN message_text_content AS t ON t.id = moves.old_rowid
    WHERE moves.new_rowid < 0
    ORDER BY moves.new_rowid DESC;

-- The words in Chinese and Japanese, under their texts' new numbers: that index is contentless
-- (0028), so it is made again as 0028 made it, from the texts. (FTS5 leaves a contentless
-- index's table of unindexed columns behind when the index is dropped: it goes too.)
DROP TABLE cjk_text;
DROP TABLE IF EXISTS cjk_text_content;
CREATE VIRTUAL TABLE cjk_text USING fts5(
    content,
    message_id UNINDEXED,
    content = '',
    contentless_unindexed = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO cjk_text (rowid, content, message_id)
    SELECT text_rowid, grams, message_id
    FROM (SELECT text_rowid, cjk_grams(content) AS grams, message_id FROM message_text_versions)
    WHERE grams IS NOT NULL;

-- The index made again from its external content.
DROP TABLE message_text;
CREATE VIRTUAL TABLE message_text USING fts5(
    content,
    message_id UNINDEXED,
    content = 'message_text_versions',
    content_rowid = 'text_rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO message_text (message_text) VALUES ('rebuild');

DROP TABLE temp.text_moves;
DROP TABLE temp.text_originals;
