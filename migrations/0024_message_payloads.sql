-- Each message as Discord sent it: the message object of a MESSAGE_CREATE, of a page of REST
-- history or of a MESSAGE_UPDATE, as JSON, deflated against a preset dictionary of Discord's
-- field names (`dictionary` says which; the recorders hold each one ever used, unchanged).
-- serenity's model drops what it does not know (a Components V2 post's text, new flag bits),
-- and Discord adds fields every year: with the payload kept, a later version derives what
-- this one does not read, without asking Discord again.
--
-- One row per distinct payload of a message (`digest`: the first 8 bytes of the SHA-256 of
-- its JSON, as a signed integer), so a replay writes nothing; `version` orders a message's
-- payloads as they arrived (0 the first). A plain message costs one row of about 200 bytes.
CREATE TABLE message_payloads (
    message_id TEXT NOT NULL,
    digest INTEGER NOT NULL,
    version INTEGER NOT NULL,
    dictionary INTEGER NOT NULL,
    payload BLOB NOT NULL,
    PRIMARY KEY (message_id, digest)
) WITHOUT ROWID;
CREATE TRIGGER message_payloads_append_only_update BEFORE UPDATE ON message_payloads BEGIN SELECT RAISE(ABORT, 'message_payloads is append-only'); END;
CREATE TRIGGER message_payloads_append_only_delete BEFORE DELETE ON message_payloads BEGIN SELECT RAISE(ABORT, 'message_payloads is append-only'); END;
