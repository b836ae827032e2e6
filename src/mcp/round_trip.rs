//! The owner's approval of one of an assistant's posts on MCP 2026-07-28, where a server no
//! longer sends requests of its own: the tool answers `input_required` (multi round-trip
//! requests), the client shows the form it carries to the person, and retries the same call
//! with their answer.
//!
//! The first round runs the call with an approval that only takes note of what would be asked
//! ([`RoundTrip::noting`]): the business layer asks after every refusal that does not depend on
//! the owner, is told the owner cannot be asked yet, and stops, having changed nothing. The
//! server then holds what was asked under a fresh handle ([`HeldApprovals`]), and answers
//! `input_required` with the form and the handle as `requestState`.
//!
//! The retry brings the handle back with the owner's answer. The handle is redeemed once: it is
//! removed before anything else is looked at, so a replayed retry, a handle this server never
//! gave, one older than [`PATIENCE`], or one for another tool or other arguments is refused,
//! and nothing is sent. A redeemed approval ([`RoundTrip::answered`]) answers the business
//! layer once, and only for exactly the post the owner was shown; anything else is not a yes.
//!
//! The handle is the only thing the client echoes back, and it is an opaque random key, never
//! the state itself: nothing the client could change there can change what is posted.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use discord_manager_core::business::kernel::approval::{
    Answer, Approval, ApprovalRequest, OwnerApproval,
};
use discord_manager_vocabulary::error::{Error, Result};
use rmcp::RoleServer;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, InputResponses, ProtocolVersion,
};
use rmcp::service::RequestContext;
use serde_json::Value;

/// How long a held approval waits for the client's retry (the owner reading the form) before
/// it is refused as expired.
pub(super) const PATIENCE: Duration = Duration::from_secs(10 * 60);

/// At most this many approvals are held at once; asking past it forgets the oldest.
const MOST_HELD: usize = 64;

/// The key of the form among the `input_required` result's requests, and of its answer among
/// the retry's responses.
pub(super) const FORM: &str = "owner_approval";

/// True when the call's client speaks MCP 2026-07-28 or later and says, in this request, that
/// it can show the person a form: the owner is then asked by `input_required`.
pub(super) fn asks_by_round_trip(context: &RequestContext<RoleServer>) -> bool {
    let modern = context
        .protocol_version()
        .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    let shows_forms = context
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        // No mode named means form, as in 2025-11-25.
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none());
    modern && shows_forms
}

/// The approval a call on 2026-07-28 runs with.
pub(super) enum RoundTrip {
    /// The first round: takes note of what would be asked, and says the owner cannot be asked
    /// yet, so the call stops before anything is sent.
    Noting(Mutex<Option<ApprovalRequest>>),
    /// The retry: the owner's answer to exactly this post, given once.
    Answered {
        asked: ApprovalRequest,
        answer: Mutex<Option<Approval>>,
    },
}

impl fmt::Debug for RoundTrip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RoundTrip::Noting(_) => f.write_str("RoundTrip::Noting"),
            RoundTrip::Answered { .. } => f.write_str("RoundTrip::Answered"),
        }
    }
}

impl RoundTrip {
    pub(super) fn noting() -> RoundTrip {
        RoundTrip::Noting(Mutex::new(None))
    }

    pub(super) fn answered(asked: ApprovalRequest, answer: Approval) -> RoundTrip {
        RoundTrip::Answered {
            asked,
            answer: Mutex::new(Some(answer)),
        }
    }

    /// What the first round would have asked the owner, if it asked.
    pub(super) fn noted(&self) -> Option<ApprovalRequest> {
        match self {
            RoundTrip::Noting(noted) => noted.lock().ok().and_then(|mut noted| noted.take()),
            RoundTrip::Answered { .. } => None,
        }
    }
}

impl OwnerApproval for RoundTrip {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> Answer<'a> {
        let approval = match self {
            RoundTrip::Noting(noted) => {
                if let Ok(mut noted) = noted.lock() {
                    *noted = Some(request.clone());
                }
                Approval::Unavailable("the client is shown the form first".to_string())
            }
            RoundTrip::Answered { asked, answer } => {
                let answer = answer.lock().ok().and_then(|mut answer| answer.take());
                match answer {
                    Some(_) if asked != request => Approval::Unavailable(
                        "what would go out changed since the owner was shown the form".to_string(),
                    ),
                    Some(answer) => answer,
                    None => {
                        Approval::Unavailable("the owner's answer was already used".to_string())
                    }
                }
            }
        };
        Box::pin(std::future::ready(approval))
    }
}

/// The `input_required` result that shows the owner `request`'s form, to be answered under
/// `handle`.
pub(super) fn input_required(request: &ApprovalRequest, handle: String) -> InputRequiredResult {
    // Nothing to fill in: the owner's choice (accept, decline, cancel) is the answer.
    let form = ElicitRequest::new(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: request.message(),
        requested_schema: ElicitationSchema::new(Default::default()),
    });
    let requests = InputRequests::from([(FORM.to_string(), InputRequest::Elicitation(form))]);
    InputRequiredResult::new(Some(requests), Some(handle))
}

/// The owner's answer among a retry's responses: accept is a yes, decline a no, and anything
/// else (cancel, a missing or unreadable answer) is not a yes.
pub(super) fn owner_answer(responses: Option<&InputResponses>) -> Approval {
    let Some(answer) = responses.and_then(|responses| responses.get(FORM)) else {
        return Approval::Unavailable("the client sent no answer to the form".to_string());
    };
    match answer.get("action").and_then(Value::as_str) {
        Some("accept") => Approval::Approved,
        Some("decline") => Approval::Declined,
        Some("cancel") => Approval::Cancelled,
        _ => Approval::Unavailable("the client's answer to the form does not read".to_string()),
    }
}

/// One approval asked and not yet answered: what the owner is shown, for which call.
struct Held {
    tool: String,
    arguments: Value,
    asked: ApprovalRequest,
    since: Instant,
}

/// The approvals asked through `input_required` and not yet redeemed, by handle: held by the
/// server for its session, never by the client.
#[derive(Default)]
pub(super) struct HeldApprovals {
    held: Mutex<HashMap<String, Held>>,
}

impl HeldApprovals {
    /// Holds `asked` for a call of `tool` with `arguments`, answering its handle: 128 random
    /// bits, as hex.
    pub(super) fn hold(
        &self,
        tool: &str,
        arguments: &Value,
        asked: ApprovalRequest,
        now: Instant,
    ) -> Result<String> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|error| {
            Error::internal(format!(
                "The owner could not be asked: no random handle for the form ({error}); \
                 nothing was sent"
            ))
        })?;
        let handle: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        let mut held = self.lock();
        held.retain(|_, held| now.duration_since(held.since) < PATIENCE);
        if held.len() >= MOST_HELD
            && let Some(oldest) = held
                .iter()
                .min_by_key(|(_, held)| held.since)
                .map(|(handle, _)| handle.clone())
        {
            held.remove(&oldest);
        }
        held.insert(
            handle.clone(),
            Held {
                tool: tool.to_string(),
                arguments: arguments.clone(),
                asked,
                since: now,
            },
        );
        Ok(handle)
    }

    /// Redeems `handle` for a retry of `tool` with `arguments`: the post the owner was shown,
    /// once. The handle is gone afterwards whatever the outcome.
    pub(super) fn redeem(
        &self,
        handle: &str,
        tool: &str,
        arguments: &Value,
        now: Instant,
    ) -> Result<ApprovalRequest> {
        let held = self.lock().remove(handle);
        let retry = "nothing was sent. Call the tool again, without requestState, to ask the owner";
        let Some(held) = held else {
            return Err(Error::denied(format!(
                "This approval was already used, or was never given by this server: {retry}"
            )));
        };
        if now.duration_since(held.since) >= PATIENCE {
            return Err(Error::denied(format!(
                "The owner's form waited more than {} minutes and expired: {retry}",
                PATIENCE.as_secs() / 60
            )));
        }
        if held.tool != tool || &held.arguments != arguments {
            return Err(Error::denied(format!(
                "The owner was asked about another call (`{}` with other arguments): {retry}",
                held.tool
            )));
        }
        Ok(held.asked)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Held>> {
        // A panic while holding the map leaves it as sound as before: every change is one call.
        self.held
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests;
