-- How many messages each model has embedded, kept as the vectors are written, so
-- `store_status` reads how far the embedding pass is from one row instead of counting every
-- vector (24 ms a call at 1M messages, and about a second the first call of the day, when the
-- count read the whole of the vectors' unique index from disk).
--
-- Like `message_meanings`, this is derived, not recorded: `put_meaning` moves a message's count
-- from the model of the row it replaces (if any) to the model of the new one, in the same
-- transaction, and a count never goes below zero.
CREATE TABLE meaning_totals (
    -- `meaning_models.id`.
    model INTEGER PRIMARY KEY,
    vectors INTEGER NOT NULL CHECK (vectors >= 0)
);

INSERT INTO meaning_totals (model, vectors)
    SELECT model, count(*) FROM message_meanings GROUP BY model;
