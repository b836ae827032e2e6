-- Search by meaning, newest first and quick to load (issue 39). Both tables are derived, like
-- `message_meanings`: they can be made again from it and from the messages.
--
-- The embedding pass walks the store from its newest message back to its oldest, so the
-- newest are searchable first. Every message whose key lies from `low_key` to `high_key` has a
-- vector of the model (an empty one when it has no text); the pass moves `high_key` up as
-- messages arrive and `low_key` down to 1, in the same transaction as the vectors it writes,
-- so a killed pass resumes where it stood. `store_status` reads how far back meaning reaches
-- from `low_key`.
CREATE TABLE meaning_walks (
    -- `meaning_models.id`.
    model INTEGER PRIMARY KEY,
    low_key INTEGER NOT NULL,
    high_key INTEGER NOT NULL
);

-- The scan's sign bits and filter columns, in blocks of 4,096 consecutive message keys
-- (`discord_manager_meaning::blocks` documents the bytes): a process's first search by
-- meaning reads about 61 bytes a message here instead of every 384-byte vector. The pass
-- writes a block's vectors and the block in one transaction, so a block, once built, always
-- holds every current vector of its range; a range with no block yet is read from the vectors.
CREATE TABLE meaning_blocks (
    -- `meaning_models.id`.
    model INTEGER NOT NULL,
    block INTEGER NOT NULL,
    slots BLOB NOT NULL,
    PRIMARY KEY (model, block)
);
