-- A channel's news counted from the index alone. `channels_list` counts each listed channel's
-- `unread` messages, all of them for a channel never marked read; with `origin` beside the
-- channel and the arrival instant, the count `origin <> 'import'` over a channel's range reads
-- no table row, where it read every row of the channel's history (112 ms at 1M messages).
DROP INDEX messages_by_channel_arrival;
CREATE INDEX messages_by_channel_arrival ON messages (channel_id, created_at, origin);
