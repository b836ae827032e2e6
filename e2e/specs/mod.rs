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
    a_bookmark_note_may_be_up_to_1000_characters,
    a_bookmarked_message_survives_its_deletion,
    a_bookmarked_message_survives_the_authors_edit,
    a_channel_the_bot_loses_access_to_is_skipped_from_then_on,
    a_moderator_clearing_one_emoji_removes_it_from_the_message,
    a_replayed_gateway_event_is_recorded_once,
    an_edit_and_a_reaction_that_arrive_before_their_message_are_applied,
    an_input_error_reads_the_same_on_both_surfaces,
    an_mcp_client_sees_exactly_the_six_tools,
    an_unknown_field_is_refused_by_name,
    bookmarking_a_message_twice_says_it_is_already_bookmarked,
    bookmarking_an_unknown_message_names_its_id,
    bookmarks_remember_whether_they_came_from_the_cli_or_mcp,
    catch_up_of_an_unknown_channel_names_its_id,
    catch_up_shows_each_message_as_it_is_now,
    catch_up_since_is_inclusive_on_the_arrival_clock,
    catch_up_skips_channels_the_bot_cannot_read,
    catch_up_watermark_is_the_newest_arrival_when_nothing_was_cut_short,
    catch_up_watermark_leaves_nothing_out_when_a_channel_is_cut_short,
    catch_up_with_nothing_new_returns_since_as_the_watermark,
    channels_list_counts_messages_new_since_an_instant_inclusively,
    channels_list_shows_which_channels_the_bot_can_read,
    every_tool_result_fits_the_output_schema_the_tool_declares,
    guilds_outside_discord_guild_ids_are_out_of_scope,
    late_history_counts_as_new_because_it_arrived_late,
    limit_accepts_whole_numbers_from_1_to_500,
    mentions_beyond_the_limit_are_reached_by_following_more,
    mentions_include_role_mentions_everyone_and_replies_to_the_owner,
    mentions_only_come_from_channels_the_bot_can_read,
    mentions_since_is_inclusive_on_the_arrival_clock,
    mentions_without_a_configured_owner_ask_for_discord_owner_id,
    resolving_a_bookmark_twice_says_it_is_already_resolved,
    the_cli_json_and_the_mcp_result_are_identical,
    the_mcp_server_introduces_itself_by_the_products_name_and_version,
}
