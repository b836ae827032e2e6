//! Live ingestion specs: the real `discord-manager ingest` (serenity's real gateway and REST
//! code) against the fake Discord on loopback, observed only through the product's own
//! `--json` output. One behaviour per file, named as the sentence it proves.
//!
//! They live here until the `e2e/` runner lands; each file moves there unchanged.

#[path = "../support/fake_discord/mod.rs"]
mod fake_discord;
mod harness;

mod a_malformed_or_unknown_dispatch_is_logged_and_skipped_and_ingestion_goes_on;
mod a_rejected_token_ends_ingest_promptly_with_an_error_that_never_shows_the_token;
mod after_a_close_4000_and_a_replay_on_resume_every_message_is_recorded_exactly_once;
mod after_a_missed_heartbeat_ack_and_a_new_identify_every_message_is_recorded_exactly_once;
mod after_kill_9_a_restart_backfills_what_was_posted_while_down_exactly_once_and_as_new;
mod an_edit_and_a_reaction_that_arrive_before_their_message_are_applied;
mod messages_edits_deletions_and_reactions_sent_over_the_gateway_land_in_the_store;
