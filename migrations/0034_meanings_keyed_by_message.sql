-- Search by meaning reads each candidate's vector by its message's key (issue 39): about a
-- thousand keys a search, each a random read of a store that may be cold on disk. Keyed by
-- `seq`, each took two descents: the unique index on `message_key` to the row's `seq`, then
-- the table. Keyed by the message, it takes one, and the rows of a range of keys (a block of
-- codes built from its vectors) lie together. 1M messages, page cache dropped: the thousand
-- vectors of a process's first search read in 66 ms instead of 160 to 195.
--
-- `seq` still grows with every write, so a reader holding vectors in memory reads on after
-- the last it saw: `put_meaning` gives a row one more than the highest `seq` (read from its
-- index) before a replaced row goes, so a replaced last row gets a higher one, never its own.
-- No row of this table is ever deleted. The rows keep their `seq`.
CREATE TABLE message_meanings_by_key (
    -- The message's integer key (`messages.seq`).
    message_key INTEGER PRIMARY KEY,
    seq INTEGER NOT NULL,
    -- `meaning_models.id`.
    model INTEGER NOT NULL,
    fingerprint INTEGER NOT NULL,
    -- 384 signed bytes, each coordinate scaled so the largest is ±127; empty for no text.
    vector BLOB NOT NULL
);

INSERT INTO message_meanings_by_key (message_key, seq, model, fingerprint, vector)
    SELECT message_key, seq, model, fingerprint, vector FROM message_meanings
    ORDER BY message_key;

DROP TABLE message_meanings;
ALTER TABLE message_meanings_by_key RENAME TO message_meanings;

-- Built after the rows are in, in one pass, rather than row by row in `seq`'s random order.
CREATE UNIQUE INDEX message_meanings_by_seq ON message_meanings (seq);
