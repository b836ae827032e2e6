-- The reactions an assistant (MCP) added or took back as the bot, one row each, written before
-- its request leaves: counted so an assistant reacts at most a few times a minute, whichever
-- process served it. Letter and keycap emoji can spell text on any message; the cap keeps that
-- channel narrow.
CREATE TABLE assistant_reactions (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    message_id TEXT NOT NULL
);
CREATE INDEX assistant_reactions_by_arrival ON assistant_reactions (created_at);

CREATE TRIGGER assistant_reactions_append_only_update BEFORE UPDATE ON assistant_reactions BEGIN SELECT RAISE(ABORT, 'assistant_reactions is append-only'); END;
CREATE TRIGGER assistant_reactions_append_only_delete BEFORE DELETE ON assistant_reactions BEGIN SELECT RAISE(ABORT, 'assistant_reactions is append-only'); END;
