-- Discord's ids become numbers: the full-text indexes' message ids. `message_id` is an
-- UNINDEXED column of each index: FTS5 keeps it, untokenized, in the index's `_content` table
-- (column `c1`), so it is cast there; the index itself, which holds only the text's terms, is
-- not touched, and FTS5's integrity check still passes (the migration's test runs it).

UPDATE message_text_content SET c1 = CAST(c1 AS INTEGER) WHERE typeof(c1) = 'text';
UPDATE file_text_content SET c1 = CAST(c1 AS INTEGER) WHERE typeof(c1) = 'text';
UPDATE cjk_text_content SET c1 = CAST(c1 AS INTEGER) WHERE typeof(c1) = 'text';
