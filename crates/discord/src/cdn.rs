//! Which attachment URLs the bot may fetch, and whether a signed one is still good.
//!
//! An attachment's URL is third-party data: a message's author cannot choose it, but the
//! store keeps whatever the payload said, and a fetch is a request from the owner's machine.
//! So only Discord's CDN is fetched, over https (`cdn.discordapp.com`,
//! `media.discordapp.net`); any other host is never asked. When `DISCORD_API_BASE` is a
//! loopback URL (how the tests run against a fake Discord), that Discord's CDN is the fake's:
//! a URL on that same loopback host and port is fetched as given, and any other host is never
//! fetched, Discord's real CDN included (a demo store's messages name it, and a test must
//! never reach the internet).
//!
//! Discord signs CDN URLs: `ex` is when the signature expires (Unix seconds, in hex), `is`
//! when it was issued, `hm` the signature. A URL past its `ex` answers 404, so it is
//! refreshed (the message fetched again over REST) before it is fetched.

use discord_manager_vocabulary::instant::Instant;
use reqwest::Url;

/// The hosts Discord serves attachments from.
pub const CDN_HOSTS: &[&str] = &["cdn.discordapp.com", "media.discordapp.net"];

/// Why a URL is not fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Not a URL at all.
    Malformed,
    /// Discord's CDN only over https.
    NotHttps,
    /// A host that is not Discord's CDN.
    NotDiscordsCdn(String),
    /// With a Discord on this machine (`DISCORD_API_BASE` on loopback): a URL that is not on
    /// its host and port (the host, and that Discord's `host:port`).
    NotTheLocalDiscord(String, String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Malformed => f.write_str("the attachment's URL is not a URL"),
            Refused::NotHttps => f.write_str("the attachment's URL is not https"),
            Refused::NotDiscordsCdn(host) => write!(
                f,
                "the attachment's URL is on {host}, not Discord's CDN ({})",
                CDN_HOSTS.join(", ")
            ),
            Refused::NotTheLocalDiscord(host, local) => write!(
                f,
                "the attachment's URL is on {host}, not the Discord on this machine \
                 (DISCORD_API_BASE, {local}), the only host fetched from while it is set"
            ),
        }
    }
}

/// The hosts a fetch may go to: Discord's CDN, and a fake Discord's own when the API base is
/// on loopback.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CdnPolicy {
    /// The loopback host and port of `DISCORD_API_BASE`, when it is one.
    loopback: Option<(String, u16)>,
}

impl CdnPolicy {
    /// The policy for a daemon whose REST base is `api_base` (`None`: Discord itself).
    pub fn for_api_base(api_base: Option<&str>) -> CdnPolicy {
        let loopback = api_base
            .and_then(|base| Url::parse(base).ok())
            .and_then(|base| {
                let host = base.host_str()?.to_string();
                let port = base.port_or_known_default()?;
                is_loopback_host(&host).then_some((host, port))
            });
        CdnPolicy { loopback }
    }

    /// `url`, parsed, when it may be fetched; why not otherwise. A redirect's target is held
    /// to the same rule, so a redirect off the CDN is refused.
    pub fn admits(&self, url: &str) -> Result<Url, Refused> {
        let parsed = Url::parse(url).map_err(|_| Refused::Malformed)?;
        let host = parsed.host_str().ok_or(Refused::Malformed)?.to_string();
        if let Some((fake_host, fake_port)) = &self.loopback
            && host == *fake_host
            && parsed.port_or_known_default() == Some(*fake_port)
            && matches!(parsed.scheme(), "http" | "https")
        {
            return Ok(parsed);
        }
        if let Some((fake_host, fake_port)) = &self.loopback {
            let port = parsed
                .port_or_known_default()
                .map_or(String::new(), |port| format!(":{port}"));
            return Err(Refused::NotTheLocalDiscord(
                format!("{host}{port}"),
                format!("{fake_host}:{fake_port}"),
            ));
        }
        if !CDN_HOSTS.contains(&host.as_str()) {
            return Err(Refused::NotDiscordsCdn(host));
        }
        if parsed.scheme() != "https" || parsed.port().is_some_and(|port| port != 443) {
            return Err(Refused::NotHttps);
        }
        Ok(parsed)
    }
}

fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// When the signature of a CDN URL expires (its `ex`), if it is signed.
pub fn expires_at(url: &Url) -> Option<Instant> {
    let (_, ex) = url.query_pairs().find(|(name, _)| name == "ex")?;
    let seconds = i64::from_str_radix(&ex, 16).ok()?;
    Some(Instant::from_micros(seconds.checked_mul(1_000_000)?))
}

/// Whether a CDN URL must be refreshed before it is fetched at `now`: its signature has
/// expired, or expires within `margin_seconds` (the fetch takes a moment, and clocks differ).
/// An unsigned URL never expires.
pub fn needs_refresh(url: &Url, now: Instant, margin_seconds: i64) -> bool {
    expires_at(url).is_some_and(|expires| expires <= now.plus_seconds(margin_seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIGNED: &str = "https://cdn.discordapp.com/attachments/1400000000000000003/\
                          1600000000000000001/eu-west-2-latency.png?ex=6750a1b0&is=674f5030&hm=9f3a";

    #[test]
    fn only_discords_cdn_is_fetched_and_only_over_https() {
        let policy = CdnPolicy::for_api_base(None);
        assert!(policy.admits(SIGNED).is_ok());
        assert!(
            policy
                .admits("https://media.discordapp.net/attachments/1/2/a.png")
                .is_ok()
        );
        assert_eq!(
            policy.admits("http://cdn.discordapp.com/attachments/1/2/a.png"),
            Err(Refused::NotHttps)
        );
        assert_eq!(
            policy.admits("https://cdn.discordapp.com:8443/attachments/1/2/a.png"),
            Err(Refused::NotHttps)
        );
        for elsewhere in [
            "https://evil.example/a.png",
            "https://cdn.discordapp.com.evil.example/a.png",
            "https://discordapp.com/a.png",
            "http://127.0.0.1:8080/attachments/1/2/a.png",
        ] {
            assert!(
                matches!(policy.admits(elsewhere), Err(Refused::NotDiscordsCdn(_))),
                "{elsewhere}"
            );
        }
        assert_eq!(policy.admits("not a url"), Err(Refused::Malformed));
    }

    #[test]
    fn a_fake_discord_on_loopback_serves_its_own_cdn_and_nothing_else_is_fetched() {
        let policy = CdnPolicy::for_api_base(Some("http://127.0.0.1:41234"));
        assert!(
            policy
                .admits("http://127.0.0.1:41234/attachments/1/2/a.png?ex=1")
                .is_ok()
        );
        // Another port, another loopback name, and Discord's real CDN are not the fake's:
        // a test never reaches the internet.
        for (other, host) in [
            (
                "http://127.0.0.1:41235/attachments/1/2/a.png",
                "127.0.0.1:41235",
            ),
            (
                "http://localhost:41234/attachments/1/2/a.png",
                "localhost:41234",
            ),
            ("http://[::1]:41234/attachments/1/2/a.png", "[::1]:41234"),
            (SIGNED, "cdn.discordapp.com:443"),
        ] {
            assert_eq!(
                policy.admits(other),
                Err(Refused::NotTheLocalDiscord(
                    host.to_string(),
                    "127.0.0.1:41234".to_string()
                )),
                "{other}"
            );
        }
        assert_eq!(
            Refused::NotTheLocalDiscord("evil.example:443".into(), "127.0.0.1:41234".into())
                .to_string(),
            "the attachment's URL is on evil.example:443, not the Discord on this machine \
             (DISCORD_API_BASE, 127.0.0.1:41234), the only host fetched from while it is set"
        );
        // A base that is not loopback opens nothing.
        let remote = CdnPolicy::for_api_base(Some("https://discord.example:443"));
        assert_eq!(remote, CdnPolicy::default());
    }

    #[test]
    fn a_signed_url_needs_refreshing_from_its_expiry_less_the_margin_and_not_before() {
        let url = Url::parse(SIGNED).unwrap();
        // 0x6750a1b0 = 1733337520.
        let expires = Instant::from_micros(1_733_337_520 * 1_000_000);
        assert_eq!(expires_at(&url), Some(expires));
        // Both sides of the boundary, with a 60 s margin.
        assert!(!needs_refresh(&url, expires.minus_seconds(61), 60));
        assert!(needs_refresh(&url, expires.minus_seconds(60), 60));
        assert!(needs_refresh(&url, expires.plus_seconds(1), 0));
        let unsigned = Url::parse("https://cdn.discordapp.com/attachments/1/2/a.png").unwrap();
        assert_eq!(expires_at(&unsigned), None);
        assert!(!needs_refresh(&unsigned, expires, 60));
        let garbled = Url::parse("https://cdn.discordapp.com/a.png?ex=zz").unwrap();
        assert_eq!(expires_at(&garbled), None);
    }
}
