//! Public functions of the business and ingestion layers that are deliberately not owner
//! capabilities, each with the reason. The parity test fails on an entry naming a function
//! that no longer exists, and on a public function that is neither wrapped nor listed here.

/// A public function that is not a capability, and why.
pub struct Exemption {
    pub function: &'static str,
    pub reason: &'static str,
}

/// Why a recorder is not a capability.
const RECORDER: &str = "gateway-driven recorder: the ingest daemon (and the demo seed's feed) calls it for each Discord event; the owner never does";

pub const EXEMPTIONS: &[Exemption] = &[
    Exemption {
        function: "business::messages::embedding::keep_blocks",
        reason: "keeps the scan's blocks of codes current in the transaction that writes vectors: called by the embedding pass and the benchmark's stand-in writer, never by the owner",
    },
    Exemption {
        function: "business::messages::embedding::take_centre",
        reason: "takes the centre of the store's vectors that the scan's sign bits are taken less: called by the embedding pass when one is due and by the benchmark's stand-in writer, never by the owner",
    },
    Exemption {
        function: "business::activity::arrivals::arrivals",
        reason: "what needs the owner as it arrives, read by the briefing's own sections: the MCP server pushes it into the session and `watch` prints it; a stream, not a call",
    },
    Exemption {
        function: "business::kernel::context::build_owner_context",
        reason: "builds the owner context every capability receives; it is the gate's input, not an owner action",
    },
    Exemption {
        function: "business::kernel::input::check_input",
        reason: "checks a call's arguments against its capability's input schema; every capability call goes through it",
    },
    Exemption {
        function: "business::kernel::input::build_input",
        reason: "builds a capability's input from checked fields; every capability call goes through it",
    },
    Exemption {
        function: "business::kernel::input::links::resolve_links",
        reason: "resolves the Discord links in a call's checked arguments to the ids they stand for; every capability call goes through it",
    },
    Exemption {
        function: "business::kernel::input::input_schema",
        reason: "derives a capability's input schema for the registry; not an owner action",
    },
    Exemption {
        function: "business::kernel::input::expected",
        reason: "words what a field wants for input errors; not an owner action",
    },
    Exemption {
        function: "business::kernel::examples::long_text",
        reason: "writes the longest text a capability's examples send, for the gates; not an owner action",
    },
    Exemption {
        function: "business::kernel::examples::from_now",
        reason: "writes an instant a capability's examples send (a schedule's sendAt); not an owner action",
    },
    Exemption {
        function: "business::kernel::untrusted::scrub",
        reason: "cleans third-party text inside every capability's answer; not an owner action",
    },
    Exemption {
        function: "business::schedules::job::send_due_schedules",
        reason: "job body: the ingest daemon runs it to send what is due; the owner's action is schedules_add",
    },
    Exemption {
        function: "business::schedules::job::run_schedules",
        reason: "the daemon's scheduler loop around the job body; the owner's action is schedules_add",
    },
    Exemption {
        function: "business::attachments::get::kept_attachment",
        reason: "attachments_get's own lookup without reading the file, for the CLI's `attachments get --out` (through registry::kept_attachment); the capability is attachments_get",
    },
    Exemption {
        function: "business::channels::unreadable_reason",
        reason: "words why the bot cannot read a channel; the readers and the daemon's bot check share the wording; not an owner action",
    },
    Exemption {
        function: "business::kernel::outbox::asked_wait",
        reason: "words a wait Discord asked for; the outbox and the daemon's REST retries share the wording; not an owner action",
    },
    Exemption {
        function: "ingest::channels::kind_of",
        reason: "maps Discord's channel type to the store's kind; the recorders and the daemon's channel planning share it, the owner never calls it",
    },
    Exemption {
        function: "ingest::channels::overwrites_of",
        reason: "reads a channel's permission overwrites as the store keeps them; the recorders and the daemon's bot check share it, the owner never calls it",
    },
    Exemption {
        function: "ingest::sent::record_sent_message",
        reason: "records Discord's answer to a send through the gateway's recorder; the DiscordSender adapters call it after a post, the owner never does",
    },
    Exemption {
        function: "ingest::sent::record_edited_message",
        reason: "records Discord's answer to an edit through the gateway's recorder; the DiscordSender adapters call it for messages_edit, the owner never does",
    },
    Exemption {
        function: "ingest::sent::record_deleted_message",
        reason: "records a deletion Discord confirmed through the gateway's recorder; the DiscordSender adapters call it for messages_delete, the owner never does",
    },
    Exemption {
        function: "ingest::sent::record_bot_reaction",
        reason: "records the bot's reaction Discord confirmed through the gateway's recorder; the DiscordSender adapters call it for reactions_add and reactions_remove, the owner never does",
    },
    Exemption {
        function: "ingest::record_event",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::record_events",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::record_event_in",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::record_dispatch",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::record_dispatches",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::record_dispatch_in",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::kept_payload::keep_payload",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::kept_payload::read_payload",
        reason: "reads a message's kept payload back as Discord's JSON, for the recorders' own pass that derives from it again; no owner action",
    },
    Exemption {
        function: "ingest::kept_payload::read_again",
        reason: "derives again, with this version's reading rules, what kept payloads show; the daemon runs it after an upgrade, the owner never does",
    },
    Exemption {
        function: "ingest::channels::record_channel",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::guilds::record_application_owner",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::guilds::record_application_owner_in",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::guilds::record_guild",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::messages::record_message",
        reason: RECORDER,
    },
    Exemption {
        function: "ingest::feed::parse_feed",
        reason: "reads the scripted feed format of seed/ and the test suite; a machine surface, not an owner action",
    },
    Exemption {
        function: "ingest::feed::decode_dispatch",
        reason: "turns a feed line into serenity's event as the gateway would; a machine surface, not an owner action",
    },
    Exemption {
        function: "ingest::feed::repair_unparsed",
        reason: "parses dispatches serenity drops although Discord sent them as documented; used by the feed and the gateway",
    },
    Exemption {
        function: "ingest::feed::why_unparsed",
        reason: "explains why serenity could not parse a recorded kind of dispatch; diagnostics for the daemon and the feed",
    },
    Exemption {
        function: "ingest::history::record_history_page",
        reason: "the backfill's recorder for a page of channel history fetched over REST; the daemon calls it, the owner never does",
    },
    Exemption {
        function: "ingest::history::record_import_page",
        reason: "the import's recorder for a page of the history from before the store began, with the import's progress; the daemon calls it, the owner never does",
    },
    Exemption {
        function: "ingest::direct::record_direct_channel",
        reason: "records a direct-message channel the first time a gateway message shows it (Discord sends no CHANNEL_CREATE for them); a recorder the daemon calls",
    },
];
