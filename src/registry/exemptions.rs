//! Public functions of the business and ingestion layers that are deliberately not owner
//! capabilities, each with the reason. The parity test fails on an entry naming a function
//! that no longer exists, and on a public function that is neither wrapped nor listed here.

/// A public function that is not a capability, and why.
pub struct Exemption {
    pub function: &'static str,
    pub reason: &'static str,
}

pub const EXEMPTIONS: &[Exemption] = &[
    Exemption {
        function: "business::context::build_owner_context",
        reason: "builds the owner context every capability receives; it is the gate's input, not an owner action",
    },
    Exemption {
        function: "business::input::parse_input",
        reason: "applies a capability's input schema; every capability call goes through it",
    },
    Exemption {
        function: "business::input::input_schema",
        reason: "derives a capability's input schema for the registry; not an owner action",
    },
    Exemption {
        function: "business::input::expected",
        reason: "words what a field wants for input errors; not an owner action",
    },
];
