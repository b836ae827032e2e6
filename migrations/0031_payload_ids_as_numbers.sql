-- Discord's ids become numbers: the kept payloads. Each id column is declared INTEGER and
-- holds the id's 64-bit number where it held its digits as TEXT: 8 bytes where the digits took
-- 19, in the row and in every index that carries the column, and ids order as numbers. SQLite
-- cannot change a column's type in place, so each table is rebuilt: a new table, the rows
-- copied with their ids cast, the old table dropped, the new one renamed, its indexes and
-- triggers made again as they were. Each migration of a store that has history commits on its
-- own: a process stopped during this file leaves the store as it was before it (and after the
-- files before it), and the next open goes on from here.

-- message_payloads: message_id.
CREATE TABLE message_payloads_numbered (
    message_id INTEGER NOT NULL,
    digest INTEGER NOT NULL,
    version INTEGER NOT NULL,
    dictionary INTEGER NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (message_id, digest)
) WITHOUT ROWID;
INSERT INTO message_payloads_numbered (message_id, digest, version, dictionary, payload)
    SELECT CAST(message_id AS INTEGER), digest, version, dictionary, payload
    FROM message_payloads;
DROP TABLE message_payloads;
ALTER TABLE message_payloads_numbered RENAME TO message_payloads;
CREATE TRIGGER message_payloads_append_only_update BEFORE UPDATE ON message_payloads BEGIN SELECT RAISE(ABORT, 'message_payloads is append-only'); END;
CREATE TRIGGER message_payloads_append_only_delete BEFORE DELETE ON message_payloads BEGIN SELECT RAISE(ABORT, 'message_payloads is append-only'); END;
