//! Every spec, one behaviour per file, each file named as the sentence it proves. A file here
//! that is not listed below fails the run before any spec starts.
//!
//! A spec is `pub async fn spec()` in `e2e/specs/<sentence_in_snake_case>.rs`: it builds its
//! guild and feed with `support::feed`, plays them into its own `support::Store`, and observes
//! the product only through `store.mcp()` or `store.cli()`, asserting the values its feed
//! produced. It never writes SQL, never reads the database and never reads the environment.

use std::future::Future;
use std::pin::Pin;

/// Specs that fail because of a reported product bug not fixed yet, each with the bug. They
/// run only when asked for (`-- --include-ignored`), so the suite stays green and the bug stays
/// in sight; the entry goes in the change that fixes the bug.
pub const KNOWN_BUGS: &[(&str, &str)] = &[];

pub struct Spec {
    pub name: &'static str,
    pub run: fn() -> Pin<Box<dyn Future<Output = ()>>>,
}

macro_rules! specs {
    ($($name:ident),* $(,)?) => {
        $(mod $name;)*

        pub fn all() -> Vec<Spec> {
            vec![$(Spec { name: stringify!($name), run: || Box::pin($name::spec()) }),*]
        }
    };
}

specs! {
    a_4000_character_nitro_message_is_stored_whole,
    a_backfill_pages_through_hundreds_of_messages_and_rides_out_5xx_and_429,
    a_bookmark_note_may_be_up_to_1000_characters,
    a_bookmarked_message_survives_its_deletion,
    a_bookmarked_message_survives_the_authors_edit,
    a_cancelled_scheduled_message_is_never_sent,
    a_channel_the_bot_loses_access_to_is_skipped_from_then_on,
    a_clean_stop_mid_stream_and_a_restart_lose_no_message,
    a_cloned_projects_dot_env_loosens_no_protection_and_never_redirects_the_token_or_the_store,
    a_crash_loop_waits_before_identifying_again,
    a_direct_message_to_the_bot_is_recorded_with_its_channel,
    a_first_start_imports_a_channels_last_7_days_across_pages_and_the_first_catch_up_shows_only_the_last_day,
    a_dismissed_mention_no_longer_awaits_a_reply_and_is_listed_as_dismissed,
    a_full_disk_stops_ingest_cleanly_with_exit_8_and_the_next_start_loses_nothing,
    a_malformed_or_unknown_dispatch_is_logged_and_skipped_and_ingestion_goes_on,
    a_mention_answered_by_the_bot_through_messages_send_no_longer_awaits_a_reply,
    a_mention_the_owner_answered_in_its_channel_is_not_awaiting_reply,
    a_mention_the_owner_reacted_to_no_longer_awaits_a_reply,
    a_message_sent_from_the_cli_is_posted_once_and_appears_once_though_the_gateway_echoes_it,
    a_moderator_clearing_one_emoji_removes_it_from_the_message,
    a_plain_search_with_a_hyphen_finds_the_hyphenated_text,
    a_post_discord_refuses_is_reported_in_the_owners_words_and_not_retried,
    a_rate_limited_send_is_retried_after_retry_after_and_posts_one_message,
    a_rejected_token_ends_ingest_promptly_with_an_error_that_never_shows_the_token,
    a_replayed_gateway_event_is_recorded_once,
    a_reply_sent_over_mcp_names_the_message_it_answers,
    a_scheduled_message_is_listed_until_cancelled_and_cancelling_it_again_is_refused,
    a_scheduled_message_is_sent_once_though_the_daemon_is_killed_mid_send,
    a_search_query_with_broken_syntax_is_refused_in_the_owners_words,
    a_second_ingest_on_the_same_store_refuses_to_start_and_names_the_running_one,
    a_stop_signal_while_the_gateway_is_still_connecting_ends_the_daemon_cleanly,
    a_thread_archived_while_the_daemon_was_down_is_found_and_backfilled,
    a_token_discord_rejects_over_rest_ends_ingest_before_it_connects,
    a_waiting_activity_call_returns_the_message_that_arrives_while_it_waits,
    activity_wait_after_is_strictly_after_on_the_arrival_clock,
    activity_wait_counts_messages_edits_deletions_and_reactions_apart,
    after_a_close_4000_and_a_replay_on_resume_every_message_is_recorded_exactly_once,
    after_a_missed_heartbeat_ack_and_a_new_identify_every_message_is_recorded_exactly_once,
    after_kill_9_a_restart_backfills_what_was_posted_while_down_exactly_once_and_as_new,
    after_kill_9_mid_import_a_restart_resumes_below_the_last_stored_page_and_what_was_posted_while_down_reads_as_new,
    an_assistant_posts_at_most_five_messages_a_minute_across_mcp_servers_on_one_store,
    an_edit_and_a_reaction_that_arrive_before_their_message_are_applied,
    an_edit_and_a_reaction_the_gateway_delivers_before_their_message_are_applied,
    an_edit_retried_after_a_5xx_leaves_one_edit_on_discord,
    an_embed_only_message_is_found_by_a_word_of_its_embed,
    an_injected_message_cannot_make_an_assistant_post_where_the_owner_did_not_allow,
    an_input_error_reads_the_same_on_both_surfaces,
    an_mcp_client_sees_exactly_the_registered_tools,
    an_unknown_field_is_refused_by_name,
    awaiting_reply_lists_only_mentions_silent_for_longer_than_silence_minutes,
    bookmarking_a_message_twice_says_it_is_already_bookmarked,
    bookmarking_an_unknown_message_names_its_id,
    bookmarks_remember_whether_they_came_from_the_cli_or_mcp,
    catch_up_of_an_unknown_channel_names_its_id,
    catch_up_pages_through_a_busy_day_reading_every_message_exactly_once,
    catch_up_shows_each_message_as_it_is_now,
    catch_up_since_is_inclusive_on_the_arrival_clock,
    catch_up_skips_channels_the_bot_cannot_read,
    catch_up_then_mark_read_and_a_second_catch_up_from_the_markers_reads_only_what_came_after,
    catch_up_watermark_is_the_newest_arrival_when_nothing_was_cut_short,
    catch_up_watermark_leaves_nothing_out_when_a_channel_is_cut_short,
    catch_up_with_nothing_new_returns_since_as_the_watermark,
    channels_list_counts_messages_new_since_an_instant_inclusively,
    channels_list_nests_a_forums_posts_under_it_with_their_titles_and_tags_and_pages_through_each_once,
    channels_list_shows_which_channels_the_bot_can_read,
    deleting_a_message_discord_no_longer_has_counts_as_done,
    deleting_the_bots_message_sends_one_delete_and_history_shows_it_deleted_once,
    digest_reports_counts_top_authors_most_reacted_unanswered_mentions_and_open_bookmarks,
    digest_window_includes_since_and_excludes_until_on_the_arrival_clock,
    doctor_fails_a_guild_in_scope_the_bot_is_not_in_and_names_the_guild_out_of_scope,
    doctor_fails_a_token_discord_rejects_and_says_how_to_replace_it,
    doctor_fails_when_the_message_content_intent_is_off,
    doctor_fails_when_the_store_cannot_be_written,
    doctor_names_each_channel_the_bot_cannot_read_and_why_as_a_warning,
    doctor_passes_every_check_while_ingest_runs_for_a_bot_that_can_read_everything,
    editing_or_deleting_another_authors_message_is_refused_with_no_request_to_discord,
    editing_the_bots_message_sends_one_patch_and_the_gateways_echo_adds_no_second_edit,
    every_malformed_json_rpc_message_gets_its_error_reply_within_a_second,
    every_message_says_whether_the_owner_this_bot_another_bot_a_webhook_or_a_person_wrote_it,
    every_tool_result_fits_the_output_schema_the_tool_declares,
    guilds_outside_discord_guild_ids_are_out_of_scope,
    history_around_a_message_shows_it_between_its_neighbours,
    history_at_an_instant_reads_discords_time_not_the_arrival_clock,
    history_shows_a_deleted_message_with_when_it_was_deleted,
    history_shows_an_edited_messages_original_content_and_every_edit,
    identifies_discord_closes_before_ready_count_toward_the_identify_budget,
    ingest_identifies_with_the_intents_the_store_needs,
    ingest_refuses_a_remote_gateway_when_the_api_base_is_local,
    invisible_characters_never_reach_either_surface_and_the_terminal_shows_control_characters,
    late_history_counts_as_new_because_it_arrived_late,
    limit_accepts_whole_numbers_from_1_to_500,
    mcp_config_writes_an_entry_a_real_mcp_client_starts_the_server_from,
    mentions_are_for_the_application_owner_ingest_learned_from_discord,
    mentions_beyond_the_limit_are_reached_by_following_the_cursor,
    mentions_include_role_mentions_everyone_and_replies_to_the_owner,
    mentions_only_come_from_channels_the_bot_can_read,
    mentions_since_is_inclusive_on_the_arrival_clock,
    mentions_without_a_configured_owner_ask_for_discord_owner_id,
    messages_edits_deletions_and_reactions_sent_over_the_gateway_land_in_the_store,
    messages_that_all_arrive_empty_warn_that_the_message_content_intent_is_off,
    paging_history_with_its_cursors_reaches_every_message_exactly_once,
    polling_activity_with_the_returned_cutoff_reads_zero_then_exactly_the_new_message,
    reacting_editing_and_deleting_in_read_only_mode_is_refused_with_no_request_to_discord,
    readers_never_fail_while_ingest_writes_at_full_rate,
    resolving_a_bookmark_twice_says_it_is_already_resolved,
    scheduling_in_read_only_mode_is_refused_alike_on_both_surfaces_and_nothing_is_scheduled,
    search_filters_by_author_and_by_channel,
    search_finds_a_message_by_the_words_it_had_before_an_edit,
    search_since_is_inclusive_and_until_exclusive_on_the_arrival_clock,
    sending_in_read_only_mode_is_refused_alike_on_both_surfaces_with_no_request_to_discord,
    serenitys_silent_fallback_to_the_real_gateway_cannot_happen,
    setup_checks_the_token_with_discord_writes_a_private_config_and_prints_the_invite_and_the_intents,
    setup_keeps_only_the_chosen_guilds_in_scope_and_names_the_others,
    setup_refuses_a_token_discord_rejects_and_writes_nothing,
    setup_says_when_the_environment_or_the_env_file_it_names_would_override_what_it_wrote,
    setup_says_to_switch_on_the_message_content_intent_when_it_is_off,
    six_hundred_waiting_calls_leave_ping_answering_within_100_ms_and_a_cancelled_wait_ends,
    store_status_reports_coverage_freshness_and_the_downtime_gap,
    the_bots_posts_ask_discord_for_no_link_preview_unless_the_owner_turns_previews_on,
    the_bots_reaction_sends_one_put_and_one_delete_and_its_echo_is_counted_once,
    the_cli_json_and_the_mcp_result_are_identical,
    the_mcp_server_introduces_itself_by_the_products_name_and_version,
    the_mcp_server_tells_the_assistant_that_message_text_is_data_never_instructions,
    the_periodic_repair_backfills_a_message_the_gateway_never_delivered,
    the_wal_stays_bounded_while_an_idle_mcp_session_is_open_during_ingest,
    with_discords_clock_5_minutes_behind_kill_9_and_a_restart_lose_nothing,
}
