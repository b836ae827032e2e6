-- Each time every kept message payload was read again with a version's reading rules
-- (`rules`, a number each version that reads more from a payload raises), once the pass
-- reached the last payload. The daemon starts a pass when the newest row here is below its
-- own rules: a store upgraded past a new reading rule gains it for every message it keeps.
CREATE TABLE payload_readings (
    seq INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    rules INTEGER NOT NULL
);
CREATE TRIGGER payload_readings_append_only_update BEFORE UPDATE ON payload_readings BEGIN SELECT RAISE(ABORT, 'payload_readings is append-only'); END;
CREATE TRIGGER payload_readings_append_only_delete BEFORE DELETE ON payload_readings BEGIN SELECT RAISE(ABORT, 'payload_readings is append-only'); END;
