-- Words in Chinese and Japanese in full-text search (issue 39).
--
-- `message_text`'s tokenizer keeps a run of ideographs or kana as one token, so a word inside
-- a Chinese or Japanese sentence was never found. Every row of `message_text` holding such a
-- run gets a row here under the same rowid, its runs written as their overlapping pairs of
-- characters (`cjk_grams`, a function the store gives each connection:
-- `crates/store/src/store/cjk.rs`). Like `message_text`, only ever inserted into.
--
-- Contentless: the pairs are indexed, not kept (a match's snippet is made from the
-- `message_text` row of the same rowid), which costs about 100 bytes a message of 30
-- characters where keeping them cost 340; the message's id is kept beside the index
-- (`contentless_unindexed`) for the join to its message.
CREATE VIRTUAL TABLE cjk_text USING fts5(
    content,
    message_id UNINDEXED,
    content = '',
    contentless_unindexed = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO cjk_text (rowid, content, message_id)
    SELECT rowid, grams, message_id
    FROM (SELECT rowid, cjk_grams(content) AS grams, message_id FROM message_text)
    WHERE grams IS NOT NULL;
