//! The domain's closed sets of words (a channel's kind, a gap's kind, a schedule event's
//! kind…), each defined once by [`word_enum!`]: one enum, one spelling per variant, and from
//! that spelling every form the word takes — the text the store keeps, the JSON both surfaces
//! answer, and the `enum` list an output schema declares. A word spelled twice cannot drift.

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

/// Defines an enum of words: `word_enum! { pub enum GapKind { Downtime = "downtime", … } }`.
/// The enum gets [`Word`], `Display`, serde (as its spelling) and a JSON schema listing every
/// spelling.
#[macro_export]
macro_rules! word_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $crate::vocabulary::Word for $name {
            const ALL: &'static [$name] = &[$($name::$variant),+];
            fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $name {
            /// The word as the store keeps it and the JSON says it.
            #[allow(dead_code)]
            pub fn as_str(self) -> &'static str {
                $crate::vocabulary::Word::as_str(self)
            }

            /// The variant spelled `text`, if any.
            #[allow(dead_code)]
            pub fn parse(text: &str) -> Option<$name> {
                <$name as $crate::vocabulary::Word>::parse(text)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                <$name as $crate::vocabulary::Word>::parse(&text).ok_or_else(|| {
                    ::serde::de::Error::unknown_variant(&text, &[$($text),+])
                })
            }
        }

        impl ::schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }
            fn inline_schema() -> bool {
                true
            }
            fn json_schema(_: &mut ::schemars::SchemaGenerator) -> ::schemars::Schema {
                ::schemars::json_schema!({ "type": "string", "enum": [$($text),+] })
            }
        }
    };
}

// Exported at the crate root (as `macro_export` does), used by its path here.
pub use crate::word_enum;

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
}
