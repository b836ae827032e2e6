-- The backups `discord-manager backup` took of this store: when, where to, and what the copy
-- held, so `doctor` can say how old the newest one is.
--
-- A row is written once its copy has passed SQLite's integrity_check and is in place; the
-- copy, a snapshot from before the row, does not hold its own.
CREATE TABLE backups (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    path TEXT NOT NULL,             -- the copy's absolute path
    messages INTEGER NOT NULL,      -- the messages the copy holds
    bytes INTEGER NOT NULL          -- the copy's size
);

CREATE TRIGGER backups_append_only_update BEFORE UPDATE ON backups BEGIN SELECT RAISE(ABORT, 'backups is append-only'); END;
CREATE TRIGGER backups_append_only_delete BEFORE DELETE ON backups BEGIN SELECT RAISE(ABORT, 'backups is append-only'); END;
