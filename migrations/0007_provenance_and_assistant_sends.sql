-- Who wrote a message, and what an assistant sent.
--
-- Provenance: Discord says whether a message's author is a bot, and a webhook's or an
-- application's message carries its id. A webhook may post under any name (the owner's too),
-- so these columns, not the author's name, decide who wrote a message. Rows stored before this
-- migration have NULL: unknown, shown as a person's unless the author is the owner or our bot.
ALTER TABLE messages ADD COLUMN author_bot INTEGER;
ALTER TABLE messages ADD COLUMN webhook_id TEXT;
ALTER TABLE messages ADD COLUMN application_id TEXT;

-- Every send an assistant (MCP) asked for, written before its request leaves, so the cap on an
-- assistant's sends per minute holds across processes (two MCP servers share one store).
-- Scheduling through MCP counts from `schedules` (source = 'mcp').
CREATE TABLE assistant_sends (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    channel_id TEXT NOT NULL
);
CREATE INDEX assistant_sends_by_arrival ON assistant_sends (created_at);
CREATE INDEX schedules_by_source_arrival ON schedules (source, created_at);

CREATE TRIGGER assistant_sends_append_only_update BEFORE UPDATE ON assistant_sends BEGIN SELECT RAISE(ABORT, 'assistant_sends is append-only'); END;
CREATE TRIGGER assistant_sends_append_only_delete BEFORE DELETE ON assistant_sends BEGIN SELECT RAISE(ABORT, 'assistant_sends is append-only'); END;
