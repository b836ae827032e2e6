-- What the MCP server pushed into an assistant's session (issue 38), append-only.
--
-- `push_deliveries`: one row per item that needs the owner, written by a server once the
-- notification carrying it was written to its client (`session` names the server process;
-- `kind` says why it needed the owner, or `counted` for an item only counted in a replay's
-- closing event). A starting server replays what no session was given.
--
-- `push_coverage`: how far along the arrival clock a server had pushed everything (`through`),
-- written as it starts and from time to time after; the newest bounds where the next start's
-- replay begins.
CREATE TABLE push_deliveries (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    session TEXT NOT NULL,
    message_id TEXT NOT NULL,
    kind TEXT NOT NULL
);
CREATE INDEX push_deliveries_by_message ON push_deliveries (message_id);
CREATE TRIGGER push_deliveries_append_only_update BEFORE UPDATE ON push_deliveries BEGIN SELECT RAISE(ABORT, 'push_deliveries is append-only'); END;
CREATE TRIGGER push_deliveries_append_only_delete BEFORE DELETE ON push_deliveries BEGIN SELECT RAISE(ABORT, 'push_deliveries is append-only'); END;

CREATE TABLE push_coverage (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    session TEXT NOT NULL,
    through TEXT NOT NULL
);
CREATE TRIGGER push_coverage_append_only_update BEFORE UPDATE ON push_coverage BEGIN SELECT RAISE(ABORT, 'push_coverage is append-only'); END;
CREATE TRIGGER push_coverage_append_only_delete BEFORE DELETE ON push_coverage BEGIN SELECT RAISE(ABORT, 'push_coverage is append-only'); END;
