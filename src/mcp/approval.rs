//! The owner's approval of one of an assistant's posts, asked through the MCP client's form
//! (MCP elicitation, form mode): the server side of the business layer's
//! [`OwnerApproval`](discord_manager_core::business::kernel::approval::OwnerApproval) port.
//!
//! The server sends `elicitation/create` inside the `tools/call` it is answering; the client
//! shows the form to the person and sends back what they chose (accept, decline, cancel). The
//! model never sees the form and cannot answer it. Only a client that declared the
//! `elicitation` capability (form mode) at initialize is asked. A session on protocol
//! 2026-07-28 or later, which forbids requests from the server, is asked through
//! `input_required` instead (`round_trip.rs`); any other client is not asked (its calls keep
//! the rules without approval).

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use discord_manager_core::business::kernel::approval::{
    Answer, Approval, ApprovalRequest, OwnerApproval,
};
use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, ProtocolVersion};
use rmcp::service::{ElicitationMode, Peer, RequestContext};
use tokio::sync::watch;

/// How long the form waits for the owner before the post is refused as unanswered.
const PATIENCE: Duration = Duration::from_secs(10 * 60);

/// Asks the owner through the form of the client whose call this is.
pub(super) struct Elicitation {
    peer: Peer<RoleServer>,
    /// True once the client cancels the call: the form is then abandoned.
    cancelled: watch::Receiver<bool>,
}

impl fmt::Debug for Elicitation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Elicitation")
    }
}

impl Elicitation {
    /// The owner's form for this call, when its client can show one; None otherwise.
    pub(super) fn for_call(
        context: &RequestContext<RoleServer>,
        cancelled: watch::Receiver<bool>,
    ) -> Option<Elicitation> {
        let forbids_requests = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let shows_forms = context
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form);
        (shows_forms && !forbids_requests).then(|| Elicitation {
            peer: context.peer.clone(),
            cancelled,
        })
    }
}

impl OwnerApproval for Elicitation {
    fn ask<'a>(&'a self, request: &'a ApprovalRequest) -> Answer<'a> {
        Box::pin(async move {
            // Nothing to fill in: the owner's choice (accept, decline, cancel) is the answer.
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: request.message(),
                requested_schema: ElicitationSchema::new(BTreeMap::new()),
            };
            let mut cancelled = self.cancelled.clone();
            let answer = tokio::select! {
                answer = self.peer.create_elicitation_with_timeout(params, Some(PATIENCE)) => answer,
                _ = cancelled.wait_for(|cancelled| *cancelled) => {
                    return Approval::Unavailable("the call was cancelled".to_string());
                }
            };
            match answer {
                Ok(result) => match result.action {
                    ElicitationAction::Accept => Approval::Approved,
                    ElicitationAction::Decline => Approval::Declined,
                    // Cancel, and any answer a later protocol adds: not a yes.
                    _ => Approval::Cancelled,
                },
                Err(error) => {
                    Approval::Unavailable(format!("the MCP client's form failed: {error}"))
                }
            }
        })
    }
}
