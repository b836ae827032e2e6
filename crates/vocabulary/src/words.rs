//! The domain's closed sets of words (a channel's kind, a gap's kind, a schedule event's
//! kind…), each defined once by [`word_enum!`]: one enum, one spelling per variant, and from
//! that spelling every form the word takes — the text the store keeps, the JSON both surfaces
//! answer, and the `enum` list an output schema declares (or, for a word whose every variant
//! says what it means, a `oneOf` of its described spellings). A word spelled twice cannot
//! drift.

/// How the reason of an attachment skipped at the cache's total cap begins: the owner's
/// policy writes it (the core's `config::attachments`), the store reads it to offer the file
/// again once the cache has room (`Reader::pending_attachments`). Spelled once, here, below
/// both.
pub const TOTAL_CAP_REACHED: &str = "total cap reached";

/// What every word enum has: its spellings, both ways.
pub trait Word: Sized + Copy + 'static {
    /// Every variant, in declaration order.
    const ALL: &'static [Self];
    /// The word as the store keeps it and the JSON says it.
    fn as_str(self) -> &'static str;
    /// The variant spelled `text`, if any.
    fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|word| word.as_str() == text)
    }
}

/// A doc comment's text as schemars reads it from `#[doc]` lines: each line without the one
/// space after `///`, joined by newlines, trimmed.
#[doc(hidden)]
pub fn doc_text(lines: &[&str]) -> String {
    let lines: Vec<&str> = lines
        .iter()
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect();
    lines.join("\n").trim().to_string()
}

/// Defines an enum of words: `word_enum! { pub enum GapKind { Downtime = "downtime", … } }`.
/// The enum gets [`Word`], `Display`, serde (as its spelling) and a JSON schema listing every
/// spelling, inlined where it is used.
///
/// A spelling may be a macro that expands to its literal (`Import = imported_origin!()`): SQL
/// that must name a word as a literal, because a partial index's `WHERE` clause names it,
/// then composes the statement with `concat!` from the same one spelling.
///
/// Marked `#[described]` (after its doc comment), a documented enum whose every variant is
/// documented gets instead the schema `#[derive(JsonSchema)]` gives such an enum: a definition
/// of its own, described by the enum's doc comment, that is `oneOf` its words, each described
/// by its variant's doc comment. Use it where a client needs to know what each word means.
#[macro_export]
macro_rules! word_enum {
    // What every word enum is and does, whatever its schema.
    (
        @words
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:expr ),+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $crate::words::Word for $name {
            const ALL: &'static [$name] = &[$($name::$variant),+];
            fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $name {
            /// Every variant, in declaration order.
            #[allow(dead_code)]
            pub const ALL: &'static [$name] = <$name as $crate::words::Word>::ALL;

            /// The word as the store keeps it and the JSON says it.
            #[allow(dead_code)]
            pub fn as_str(self) -> &'static str {
                $crate::words::Word::as_str(self)
            }

            /// The variant spelled `text`, if any.
            #[allow(dead_code)]
            pub fn parse(text: &str) -> Option<$name> {
                <$name as $crate::words::Word>::parse(text)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::serde::Serialize for $name {
            fn serialize<S: $crate::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                <$name as $crate::words::Word>::parse(&text).ok_or_else(|| {
                    $crate::serde::de::Error::unknown_variant(&text, &[$($text),+])
                })
            }
        }
    };

    // Described: every word's meaning in the schema.
    (
        $(#[doc = $doc:literal])+
        #[described]
        $vis:vis enum $name:ident {
            $( $(#[doc = $variant_doc:literal])+ $variant:ident = $text:expr ),+ $(,)?
        }
    ) => {
        $crate::words::word_enum! {
            @words
            $(#[doc = $doc])+
            $vis enum $name {
                $( $(#[doc = $variant_doc])+ $variant = $text ),+
            }
        }

        impl $crate::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                concat!(module_path!(), "::", stringify!($name)).into()
            }
            fn json_schema(_: &mut $crate::schemars::SchemaGenerator) -> $crate::schemars::Schema {
                $crate::schemars::json_schema!({
                    "description": $crate::words::doc_text(&[$($doc),+]),
                    "oneOf": [$({
                        "type": "string",
                        "const": $text,
                        "description": $crate::words::doc_text(&[$($variant_doc),+])
                    }),+]
                })
            }
        }
    };

    // Plain: the list of spellings, inlined.
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:expr ),+ $(,)?
        }
    ) => {
        $crate::words::word_enum! {
            @words
            $(#[$meta])*
            $vis enum $name {
                $( $(#[$variant_meta])* $variant = $text ),+
            }
        }

        impl $crate::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn inline_schema() -> bool {
                true
            }
            fn json_schema(_: &mut $crate::schemars::SchemaGenerator) -> $crate::schemars::Schema {
                $crate::schemars::json_schema!({ "type": "string", "enum": [$($text),+] })
            }
        }
    };
}

// Exported at the crate root (as `macro_export` does), used by its path here.
pub use crate::word_enum;

word_enum! {
    /// How `messages_search` finds messages: by the query's words (full-text search), by what
    /// it means (the sentence model bundled in the binary), or both rankings fused. The
    /// input field's description says what each is for.
    pub enum SearchMode {
        Words = "words",
        Meaning = "meaning",
        Both = "both",
    }
}

word_enum! {
    /// Why a search result was found.
    #[described]
    pub enum MatchedBy {
        /// It holds the query's words.
        Words = "words",
        /// It means what the query asks, in other words.
        Meaning = "meaning",
        /// Both: it holds the words and is close in meaning.
        Both = "both",
    }
}

#[cfg(test)]
mod tests {
    word_enum! {
        /// A test word.
        enum Weather {
            Sunny = "sunny",
            /// Doc comments on variants are kept.
            HeavyRain = "heavy-rain",
        }
    }

    #[test]
    fn every_form_of_a_word_is_its_one_spelling() {
        assert_eq!(Weather::HeavyRain.as_str(), "heavy-rain");
        assert_eq!(Weather::HeavyRain.to_string(), "heavy-rain");
        assert_eq!(Weather::parse("sunny"), Some(Weather::Sunny));
        assert_eq!(Weather::parse("Sunny"), None);
        assert_eq!(
            serde_json::to_value(Weather::HeavyRain).unwrap(),
            serde_json::json!("heavy-rain")
        );
        let read: Weather = serde_json::from_str("\"sunny\"").unwrap();
        assert_eq!(read, Weather::Sunny);
        let refused = serde_json::from_str::<Weather>("\"hail\"").unwrap_err();
        assert!(
            refused.to_string().contains("unknown variant `hail`"),
            "{refused}"
        );
        let schema = schemars::schema_for!(Weather);
        assert_eq!(
            schema.as_value()["enum"],
            serde_json::json!(["sunny", "heavy-rain"])
        );
    }

    /// The same words as a described word enum and as `#[derive(JsonSchema)]` writes them, so
    /// their schemas can be compared.
    mod described {
        word_enum! {
            /// How the sky looks,
            /// in two lines.
            #[described]
            pub enum Sky {
                /// Not a cloud.
                Clear = "clear",
                /// Clouds from one horizon
                ///  to the other.
                Overcast = "overcast",
            }
        }
    }

    mod derived {
        /// How the sky looks,
        /// in two lines.
        #[derive(serde::Serialize, schemars::JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[allow(dead_code)]
        pub enum Sky {
            /// Not a cloud.
            Clear,
            /// Clouds from one horizon
            ///  to the other.
            Overcast,
        }
    }

    #[test]
    fn a_described_word_enum_has_the_schema_deriving_one_gives() {
        // As answers hold them: a field referring to the enum's own definition.
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Forecast {
            sky: described::Sky,
        }
        #[allow(dead_code)]
        #[derive(schemars::JsonSchema)]
        struct DerivedForecast {
            sky: derived::Sky,
        }
        let ours = schemars::schema_for!(Forecast).to_value();
        let derived = schemars::schema_for!(DerivedForecast).to_value();
        assert_eq!(ours["$defs"], derived["$defs"]);
        assert_eq!(ours["properties"], derived["properties"]);
        assert_eq!(ours["properties"]["sky"]["$ref"], "#/$defs/Sky");
        assert_eq!(
            ours["$defs"]["Sky"],
            serde_json::json!({
                "description": "How the sky looks,\nin two lines.",
                "oneOf": [
                    {"type": "string", "const": "clear", "description": "Not a cloud."},
                    {
                        "type": "string",
                        "const": "overcast",
                        "description": "Clouds from one horizon\n to the other."
                    }
                ]
            })
        );
        assert_eq!(
            described::Sky::ALL,
            [described::Sky::Clear, described::Sky::Overcast]
        );
        assert_eq!(
            described::Sky::parse("overcast"),
            Some(described::Sky::Overcast)
        );
        assert_eq!(described::Sky::Clear.to_string(), "clear");
    }
}
