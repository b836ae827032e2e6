-- The centre of each model's vectors in this store (issue 39): the mean of a sample of its
-- unit vectors, which the scan takes away before taking sign bits, so the bits tell messages
-- apart (the model's vectors share a large common part, and uncentred sign bits agree on most
-- bits whatever the text). Derived, like `message_meanings`: the embedding pass takes it from
-- the vectors, again as they grow (each time their number has doubled) until it is taken from
-- a full sample, and drops the model's blocks of codes in the same transaction.
CREATE TABLE meaning_centres (
    -- `meaning_models.id`.
    model INTEGER PRIMARY KEY,
    -- Each coordinate of the mean, a little-endian f32 (`discord_manager_meaning::centre`).
    centre BLOB NOT NULL,
    -- How many vectors the mean was taken of.
    made_from INTEGER NOT NULL CHECK (made_from > 0),
    -- How many messages the model had embedded when it was taken (`meaning_totals`).
    reach INTEGER NOT NULL CHECK (reach >= 0)
);

-- Every block of version 1 holds uncentred sign bits: the pass builds them again, centred.
DELETE FROM meaning_blocks;
