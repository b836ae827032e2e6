//! The one list of capabilities. The MCP tool list and the CLI command tree are both built
//! from [`capabilities`], so the two surfaces cannot differ: same names, same input schema,
//! same validation, same business call, same JSON result.
//!
//! Each entry names the business function it wraps; the macro writes that name from the very
//! path it calls, so a `wraps` can never name a function that does not exist. Public business
//! functions that are not capabilities are listed in [`exemptions`] with their reason, and
//! `tests/parity.rs` holds the two lists against the source.

pub mod exemptions;

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};

use discord_manager_sender::DiscordSender;
use discord_manager_store::Store;
use discord_manager_vocabulary::error::{Error, Result};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::answer::Outcome;
use crate::business::kernel::examples::{Examples, Sample};
use crate::business::kernel::input;
use crate::business::{self, OwnerContext};

/// What a capability call needs: the store, the owner context built at start-up (the MCP
/// server gives each call from a client that can show forms a copy that can ask the owner),
/// and the Discord client that sends as the bot (None when no token is configured).
#[derive(Clone)]
pub struct Services {
    pub store: Arc<Store>,
    pub context: OwnerContext,
    pub sender: Option<Arc<dyn DiscordSender>>,
}

/// What a capability does to the world, declared once per capability. The MCP adapter projects
/// it into the tool annotations clients use to decide what to auto-approve; the registry's
/// macro has no form without it, so a capability that declares no kind does not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Only reads the local store: nothing changes, calling it again changes nothing.
    ReadsStore,
    /// Appends to the local store only (bookmarks, cancelling a schedule): nothing leaves the
    /// machine, and repeating the call is refused rather than doubled.
    WritesStore,
    /// Appends to the local store only, but takes something out of the owner's own view
    /// (dismissing a mention, marking channels read): an assistant talked into it could make
    /// the owner miss what was addressed to them. Marked destructive, so a client asks the
    /// owner first; repeating the call changes nothing more.
    HidesFromOwner,
    /// Posts to Discord, now or later (sends, schedules): other people see the result, and each
    /// call posts again.
    ActsOnDiscord,
    /// Sets something on Discord that can be set back (the bot's reaction, its message's text):
    /// other people see it, and repeating the call changes nothing more.
    ChangesOnDiscord,
    /// Removes something from Discord for good (the bot's message): other people lose it, and
    /// nothing brings it back there, though the store keeps it. Repeating the call does
    /// nothing more.
    DeletesOnDiscord,
}

impl Effect {
    /// Whether the capability leaves the store as it found it.
    pub fn read_only(self) -> bool {
        self == Effect::ReadsStore
    }

    /// Whether the capability reaches beyond the owner's machine (Discord, other people).
    pub fn open_world(self) -> bool {
        matches!(
            self,
            Effect::ActsOnDiscord | Effect::ChangesOnDiscord | Effect::DeletesOnDiscord
        )
    }

    /// Whether calling it twice with the same input has no further effect: reads, store
    /// writes whose repeat is refused ("already bookmarked"), an edit, a reaction and a
    /// deletion are; a post is not.
    pub fn idempotent(self) -> bool {
        self != Effect::ActsOnDiscord
    }

    /// Whether a client should treat it as destructive and ask first. The store is
    /// append-only, a post only adds a message, and an edit or a reaction can be set back (the
    /// earlier text stays in the store's history); a deletion on Discord cannot be undone
    /// there, and what is hidden from the owner is, to the owner, as good as gone.
    pub fn destructive(self) -> bool {
        matches!(self, Effect::DeletesOnDiscord | Effect::HidesFromOwner)
    }
}

pub type Invocation<'a> = Pin<Box<dyn Future<Output = Result<Box<dyn Outcome>>> + Send + 'a>>;
/// A call of an async business function with fields already checked against the input schema.
type Invoke = Box<dyn for<'a> Fn(Map<String, Value>, &'a Services) -> Invocation<'a> + Send + Sync>;
/// A call of a synchronous business function with fields already checked: it runs on the
/// calling thread.
type InvokeNow =
    Box<dyn Fn(Map<String, Value>, &Services) -> Result<Box<dyn Outcome>> + Send + Sync>;

/// How a capability's business function runs, which is where an adapter must run it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// A synchronous function over the store: it blocks the thread it is called on while
    /// SQLite reads or writes, so an adapter calls it on a thread that may block
    /// ([`Capability::call_now`]).
    Now,
    /// An async function that reads or writes the store on the thread that polls it, between
    /// its awaits on Discord or on the owner's answer: an adapter polls it on a thread that
    /// may block.
    PolledOnAThread,
    /// An async function that waits (up to a minute) on the runtime's timer and puts its store
    /// reads on the blocking pool itself: an adapter polls it on its runtime, and it holds no
    /// thread while it waits.
    OnTheRuntime,
}

/// A capability's business function, as [`Runs`] says it runs.
enum Function {
    Now(InvokeNow),
    Async(Runs, Invoke),
}

/// One capability: its names on both surfaces, its schemas, and the call.
pub struct Capability {
    /// The MCP tool name, `<domain>_<verb>`.
    pub name: &'static str,
    /// A short human title, what a client shows instead of the tool name.
    pub title: &'static str,
    /// What calling it does to the world.
    pub effect: Effect,
    /// The CLI command path, e.g. `["bookmarks", "resolve"]`.
    pub command: &'static [&'static str],
    /// The input field the CLI also takes positionally, if any.
    pub positional: Option<&'static str>,
    /// The business function this capability is, where it really is:
    /// `business::<toolset>::<capability>::<function>`.
    pub wraps: &'static str,
    /// What the caller gets and when to use it: the input type's doc comment.
    pub description: String,
    pub input_schema: Map<String, Value>,
    pub output_schema: Map<String, Value>,
    function: Function,
    examples: fn(&Sample) -> Examples,
}

impl Capability {
    /// A capability whose business function is synchronous (it only reads or writes the store).
    fn new<I, O>(
        (name, title, effect): (&'static str, &'static str, Effect),
        command: &'static [&'static str],
        positional: Option<&'static str>,
        wraps: &'static str,
        function: fn(&Store, I, &OwnerContext) -> Result<O>,
        examples: fn(&Sample) -> Examples,
    ) -> Capability
    where
        I: DeserializeOwned + JsonSchema + Send + 'static,
        O: Outcome + JsonSchema + 'static,
    {
        let call: InvokeNow = Box::new(move |arguments, services| {
            let input = input::build_input::<I>(arguments)?;
            let output = function(&services.store, input, &services.context)?;
            Ok(Box::new(output) as Box<dyn Outcome>)
        });
        Capability::described::<I, O>(
            (name, title, effect),
            command,
            positional,
            wraps,
            Function::Now(call),
            examples,
        )
    }

    /// The schemas and description from the input and output types, around a call.
    fn described<I: JsonSchema, O: JsonSchema>(
        (name, title, effect): (&'static str, &'static str, Effect),
        command: &'static [&'static str],
        positional: Option<&'static str>,
        wraps: &'static str,
        function: Function,
        examples: fn(&Sample) -> Examples,
    ) -> Capability {
        let mut input_schema = schema_object(input::input_schema::<I>().to_value());
        input_schema.remove("title");
        let description = input_schema
            .remove("description")
            .and_then(|text| text.as_str().map(str::to_string))
            .unwrap_or_default();
        let output_schema = schema_object(
            SchemaSettings::draft2020_12()
                .with(|settings| settings.meta_schema = None)
                .for_serialize()
                .into_generator()
                .into_root_schema_for::<O>()
                .to_value(),
        );
        Capability {
            name,
            title,
            effect,
            command,
            positional,
            wraps,
            description,
            input_schema,
            output_schema,
            function,
            examples,
        }
    }

    /// Where an adapter runs this capability's calls.
    pub fn runs(&self) -> Runs {
        match &self.function {
            Function::Now(_) => Runs::Now,
            Function::Async(runs, _) => *runs,
        }
    }

    /// What the capability is shown and measured with on a store `sample` describes (see
    /// [`business::kernel::examples`]).
    pub fn examples(&self, sample: &Sample) -> Examples {
        (self.examples)(sample)
    }

    /// Checks `arguments` against this capability's input schema (the one clients see) and
    /// calls the business function once. A synchronous one ([`Runs::Now`]) runs here, on this
    /// thread, and the future is its result; an async one runs as the future is polled.
    pub fn call<'a>(&'a self, arguments: Value, services: &'a Services) -> Invocation<'a> {
        match (&self.function, self.checked(arguments, services)) {
            (_, Err(error)) => Box::pin(std::future::ready(Err(error))),
            (Function::Now(call), Ok(fields)) => {
                Box::pin(std::future::ready(call(fields, services)))
            }
            (Function::Async(_, invoke), Ok(fields)) => invoke(fields, services),
        }
    }

    /// Checks `arguments` and calls a synchronous business function ([`Runs::Now`]) on this
    /// thread. An async one is refused as a bug of the adapter, which polls it instead
    /// ([`Capability::call`]).
    pub fn call_now(&self, arguments: Value, services: &Services) -> Result<Box<dyn Outcome>> {
        let Function::Now(call) = &self.function else {
            return Err(Error::internal(format!(
                "`{}` is async: it is polled, not called on the spot",
                self.name
            )));
        };
        self.checked(arguments, services)
            .and_then(|fields| call(fields, services))
    }

    /// `arguments` checked against this capability's input schema, every Discord link in them
    /// resolved to the id it stands for (reading the store only when a link was given).
    fn checked(&self, arguments: Value, services: &Services) -> Result<Map<String, Value>> {
        let fields = input::check_input(&self.input_schema, arguments)?;
        input::resolve_links(&self.input_schema, fields, &services.store)
    }
}

fn schema_object(mut value: Value) -> Map<String, Value> {
    unwrap_descriptions(&mut value);
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Doc comments are wrapped at 100 columns; a description is prose, so its lines are joined
/// (paragraph breaks are kept).
fn unwrap_descriptions(value: &mut Value) {
    match value {
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                match item {
                    Value::String(text) if key == "description" => {
                        *text = text
                            .split("\n\n")
                            .map(|paragraph| {
                                paragraph.split_whitespace().collect::<Vec<_>>().join(" ")
                            })
                            .collect::<Vec<_>>()
                            .join("\n\n");
                    }
                    other => unwrap_descriptions(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(unwrap_descriptions),
        _ => {}
    }
}

/// Boxes a call, fixing its signature so the closure is general over the services' lifetime.
fn invoke<F>(call: F) -> Invoke
where
    F: for<'a> Fn(Map<String, Value>, &'a Services) -> Invocation<'a> + Send + Sync + 'static,
{
    Box::new(call)
}

macro_rules! capability {
    // An async business function that posts to Discord: it also gets the Discord client.
    (async sender $name:literal, $title:literal, $effect:ident, [$($word:literal),+], $positional:expr, $($path:ident)::+, $input:ty => $output:ty, examples = $examples:path) => {
        Capability::described::<$input, $output>(
            ($name, $title, Effect::$effect),
            &[$($word),+],
            $positional,
            concat!("business" $(, "::", stringify!($path))+),
            Function::Async(Runs::PolledOnAThread, invoke(|arguments, services| {
                Box::pin(async move {
                    let input = input::build_input::<$input>(arguments)?;
                    let output: $output = business::$($path)::+(
                        &services.store,
                        input,
                        &services.context,
                        services.sender.as_deref(),
                    )
                    .await?;
                    Ok(Box::new(output) as Box<dyn Outcome>)
                })
            })),
            $examples,
        )
    };
    // An async business function that waits (up to a minute), run on the runtime without a
    // thread of its own: marked so, explicitly, since other async calls (one that asks the
    // owner, say) must not lose what a call gets beside the runtime.
    (async waits $name:literal, $title:literal, $effect:ident, [$($word:literal),+], $positional:expr, $($path:ident)::+, $input:ty => $output:ty, examples = $examples:path) => {
        capability!(@async Runs::OnTheRuntime, $name, $title, $effect, [$($word),+], $positional, $($path)::+, $input => $output, examples = $examples)
    };
    // An async business function that reads or writes the store between its awaits.
    (async $name:literal, $title:literal, $effect:ident, [$($word:literal),+], $positional:expr, $($path:ident)::+, $input:ty => $output:ty, examples = $examples:path) => {
        capability!(@async Runs::PolledOnAThread, $name, $title, $effect, [$($word),+], $positional, $($path)::+, $input => $output, examples = $examples)
    };
    // An async business function run as `$runs` says: the types are named because an async
    // fn's future cannot be named generically.
    (@async $runs:expr, $name:literal, $title:literal, $effect:ident, [$($word:literal),+], $positional:expr, $($path:ident)::+, $input:ty => $output:ty, examples = $examples:path) => {
        Capability::described::<$input, $output>(
            ($name, $title, Effect::$effect),
            &[$($word),+],
            $positional,
            concat!("business" $(, "::", stringify!($path))+),
            Function::Async($runs, invoke(|arguments, services| {
                Box::pin(async move {
                    let input = input::build_input::<$input>(arguments)?;
                    let output: $output =
                        business::$($path)::+(&services.store, input, &services.context).await?;
                    Ok(Box::new(output) as Box<dyn Outcome>)
                })
            })),
            $examples,
        )
    };
    // A synchronous business function, named by its path below `business` (its toolset, its
    // capability's module, the function), which is also what `wraps` says.
    ($name:literal, $title:literal, $effect:ident, [$($word:literal),+], $positional:expr, $($path:ident)::+, examples = $examples:path) => {
        Capability::new(
            ($name, $title, Effect::$effect),
            &[$($word),+],
            $positional,
            concat!("business" $(, "::", stringify!($path))+),
            business::$($path)::+,
            $examples,
        )
    };
}

/// Every capability, in the order the tool list and the help show them.
pub fn capabilities() -> &'static [Capability] {
    static CAPABILITIES: LazyLock<Vec<Capability>> = LazyLock::new(|| {
        [
            channel_and_message_readers(),
            bot_actions(),
            triage(),
            status_and_schedules(),
        ]
        .into_iter()
        .flatten()
        .collect()
    });
    &CAPABILITIES
}

/// Reading the store: channels, catch-up, history, search.
fn channel_and_message_readers() -> Vec<Capability> {
    vec![
        capability!(
            "channels_list",
            "List channels",
            ReadsStore,
            ["channels", "list"],
            None,
            channels::list::list_channels,
            examples = business::channels::list::list_channels_examples
        ),
        capability!(
            "channels_mark_read",
            "Mark channels read",
            HidesFromOwner,
            ["mark-read"],
            None,
            channels::mark_read::mark_read,
            examples = business::channels::mark_read::mark_read_examples
        ),
        capability!(
            "messages_catch_up",
            "Catch up on new messages",
            ReadsStore,
            ["catch-up"],
            None,
            messages::catch_up::catch_up,
            examples = business::messages::catch_up::catch_up_examples
        ),
        capability!(
            "messages_history",
            "Read a channel's history",
            ReadsStore,
            ["history"],
            Some("channelId"),
            messages::history::read_history,
            examples = business::messages::history::read_history_examples
        ),
        capability!(
            "messages_search",
            "Search messages",
            ReadsStore,
            ["search"],
            Some("query"),
            messages::search::search_messages,
            examples = business::messages::search::search_messages_examples
        ),
        capability!(
            "attachments_get",
            "Show a message's attachment",
            ReadsStore,
            ["attachments", "get"],
            Some("attachmentId"),
            attachments::get::get_attachment,
            examples = business::attachments::get::get_attachment_examples
        ),
    ]
}

/// Acting on Discord as the bot: posts, edits, deletions, reactions.
fn bot_actions() -> Vec<Capability> {
    vec![
        capability!(
            async sender "messages_send",
            "Send a message as the bot",
            ActsOnDiscord,
            ["send"],
            Some("content"),
            messages::send::send_message,
            business::messages::send::SendMessage => business::kernel::model::Message,
            examples = business::messages::send::send_message_examples
        ),
        capability!(
            async sender "messages_edit",
            "Edit the bot's message",
            ChangesOnDiscord,
            ["edit"],
            Some("messageId"),
            messages::edit::edit_message,
            business::messages::edit::EditMessage => business::kernel::model::Message,
            examples = business::messages::edit::edit_message_examples
        ),
        capability!(
            async sender "messages_delete",
            "Delete the bot's message",
            DeletesOnDiscord,
            ["delete"],
            Some("messageId"),
            messages::delete::delete_message,
            business::messages::delete::DeleteMessage => business::kernel::model::Message,
            examples = business::messages::delete::delete_message_examples
        ),
        capability!(
            async sender "reactions_add",
            "React as the bot",
            ChangesOnDiscord,
            ["reactions", "add"],
            Some("messageId"),
            reactions::add::add_reaction,
            business::reactions::add::AddReaction => business::kernel::model::Message,
            examples = business::reactions::add::add_reaction_examples
        ),
        capability!(
            async sender "reactions_remove",
            "Remove the bot's reaction",
            ChangesOnDiscord,
            ["reactions", "remove"],
            Some("messageId"),
            reactions::remove::remove_reaction,
            business::reactions::remove::RemoveReaction => business::kernel::model::Message,
            examples = business::reactions::remove::remove_reaction_examples
        ),
    ]
}

/// The owner's triage: the briefing, mentions, activity, digests, bookmarks.
fn triage() -> Vec<Capability> {
    vec![
        capability!(
            "activity_briefing",
            "Brief the owner on what they missed",
            ReadsStore,
            ["briefing"],
            None,
            activity::briefing::briefing,
            examples = business::activity::briefing::briefing_examples
        ),
        capability!(
            "mentions_list",
            "List mentions of the owner",
            ReadsStore,
            ["mentions", "list"],
            None,
            mentions::list::list_mentions,
            examples = business::mentions::list::list_mentions_examples
        ),
        capability!(
            "mentions_awaiting_reply",
            "Mentions awaiting the owner's reply",
            ReadsStore,
            ["mentions", "awaiting-reply"],
            None,
            mentions::awaiting_reply::awaiting_reply,
            examples = business::mentions::awaiting_reply::awaiting_reply_examples
        ),
        capability!(
            "mentions_dismiss",
            "Dismiss a mention",
            HidesFromOwner,
            ["mentions", "dismiss"],
            Some("messageId"),
            mentions::dismiss::dismiss_mention,
            examples = business::mentions::dismiss::dismiss_mention_examples
        ),
        capability!(
            async waits "activity_wait",
            "Wait for new activity",
            ReadsStore,
            ["wait"],
            None,
            activity::wait::wait_for_activity,
            business::activity::wait::WaitForActivity => business::activity::wait::Activity,
            examples = business::activity::wait::wait_for_activity_examples
        ),
        capability!(
            "activity_digest",
            "Digest of a window",
            ReadsStore,
            ["digest"],
            None,
            activity::digest::digest,
            examples = business::activity::digest::digest_examples
        ),
        capability!(
            "bookmarks_add",
            "Bookmark a message",
            WritesStore,
            ["bookmarks", "add"],
            Some("messageId"),
            bookmarks::add::add_bookmark,
            examples = business::bookmarks::add::add_bookmark_examples
        ),
        capability!(
            "bookmarks_list",
            "List open bookmarks",
            ReadsStore,
            ["bookmarks", "list"],
            None,
            bookmarks::list::list_bookmarks,
            examples = business::bookmarks::list::list_bookmarks_examples
        ),
        capability!(
            "bookmarks_resolve",
            "Resolve a bookmark",
            WritesStore,
            ["bookmarks", "resolve"],
            Some("messageId"),
            bookmarks::resolve::resolve_bookmark,
            examples = business::bookmarks::resolve::resolve_bookmark_examples
        ),
    ]
}

/// The store's own state, and messages to send later.
fn status_and_schedules() -> Vec<Capability> {
    vec![
        capability!(
            "store_status",
            "Store freshness and coverage",
            ReadsStore,
            ["status"],
            None,
            store::status::store_status,
            examples = business::store::status::store_status_examples
        ),
        capability!(
            async "schedules_add",
            "Schedule a message",
            ActsOnDiscord,
            ["schedules", "add"],
            Some("content"),
            schedules::add::add_schedule,
            business::schedules::add::AddSchedule => business::schedules::Schedule,
            examples = business::schedules::add::add_schedule_examples
        ),
        capability!(
            "schedules_list",
            "List scheduled messages",
            ReadsStore,
            ["schedules", "list"],
            None,
            schedules::list::list_schedules,
            examples = business::schedules::list::list_schedules_examples
        ),
        capability!(
            "schedules_cancel",
            "Cancel a scheduled message",
            WritesStore,
            ["schedules", "cancel"],
            Some("scheduleId"),
            schedules::cancel::cancel_schedule,
            examples = business::schedules::cancel::cancel_schedule_examples
        ),
    ]
}

/// Every capability in the order its demonstrations run on one demo store: those that only
/// read first, so each sees the store as the seed made it, then the rest; each part in
/// registry order (a bookmark is added before it is resolved).
pub fn in_demo_order() -> Vec<&'static Capability> {
    let (reading, writing): (Vec<_>, Vec<_>) = capabilities()
        .iter()
        .partition(|capability| capability.effect.read_only());
    reading.into_iter().chain(writing).collect()
}

/// The capability with this MCP tool name.
pub fn find(name: &str) -> Result<&'static Capability> {
    capabilities()
        .iter()
        .find(|capability| capability.name == name)
        .ok_or_else(|| Error::input(format!("There is no tool named `{name}`")))
}

/// `attachments get ID --out FILE`: the attachment the arguments name (checked against
/// `attachments_get`'s input schema), found as `attachments_get` finds it (in scope, in a
/// readable channel, kept or not and why) but its file neither read nor decoded: what the CLI
/// copies the kept bytes from, however large the image.
pub fn kept_attachment(arguments: Value, services: &Services) -> Result<Box<dyn Outcome>> {
    let capability = find("attachments_get")?;
    let fields = capability.checked(arguments, services)?;
    let input = input::build_input::<business::attachments::get::GetAttachment>(fields)?;
    let found =
        business::attachments::get::kept_attachment(&services.store, input, &services.context)?;
    Ok(Box::new(found))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::capabilities;
    use crate::business::kernel::examples::Sample;

    /// Every gate takes its cases from here, so a capability registered with empty examples
    /// (or one naming a field its input does not have) fails them all at once.
    #[test]
    fn every_capability_declares_examples_for_every_gate() {
        for capability in capabilities() {
            let examples = capability.examples(&Sample::of_the_demo());
            let name = capability.name;
            assert!(
                examples.on_a_generated_store().next().is_some(),
                "{name} declares no call for a generated store (a default or a largest input)"
            );
            assert!(
                !examples.demo.is_empty(),
                "{name} declares no demonstration"
            );
            let properties = capability.input_schema["properties"].as_object();
            let required: Vec<&str> = capability
                .input_schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for input in examples.on_a_generated_store().chain(&examples.demo) {
                let fields = input.as_object().unwrap_or_else(|| {
                    panic!("{name}'s example {input} is not an object of inputs")
                });
                for field in fields.keys() {
                    assert!(
                        properties.is_some_and(|known| known.contains_key(field)),
                        "{name}'s example {input} gives `{field}`, which its input does not have"
                    );
                }
                for field in &required {
                    assert!(
                        fields.contains_key(*field),
                        "{name}'s example {input} leaves out the required `{field}`"
                    );
                }
            }
        }
    }
}
