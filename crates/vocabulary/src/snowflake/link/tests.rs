//! Every accepted form of a Discord link, and every refused one with its exact reason.

use super::*;

fn refused(text: &str) -> String {
    parse_discord_link(text).unwrap_err().to_string()
}

#[test]
fn a_message_link_names_its_server_channel_and_message() {
    let link = parse_discord_link(
        "https://discord.com/channels/1189078100000000001/1189078100000000002/1189078123456789012",
    )
    .unwrap();
    assert_eq!(
        link,
        DiscordLink {
            guild: GuildId::parse("1189078100000000001"),
            channel: ChannelId::parse("1189078100000000002").unwrap(),
            message: MessageId::parse("1189078123456789012"),
        }
    );
    assert_eq!(
        link.url(),
        "https://discord.com/channels/1189078100000000001/1189078100000000002/1189078123456789012"
    );
}

#[test]
fn a_channel_link_has_no_message() {
    let link = parse_discord_link("https://discord.com/channels/1/2").unwrap();
    assert_eq!(link.guild, GuildId::parse("1"));
    assert_eq!(link.channel, "2");
    assert_eq!(link.message, None);
    assert_eq!(link.url(), "https://discord.com/channels/1/2");
}

#[test]
fn the_test_builds_hosts_are_accepted_and_written_back_on_discord_com() {
    for host in ["ptb.discord.com", "canary.discord.com", "Discord.COM"] {
        let link = parse_discord_link(&format!("https://{host}/channels/1/2/3")).unwrap();
        assert_eq!(link.url(), "https://discord.com/channels/1/2/3", "{host}");
    }
    // The scheme is case-insensitive, as in any address.
    assert!(parse_discord_link("HTTPS://discord.com/channels/1/2/3").is_ok());
}

#[test]
fn at_me_stands_for_a_direct_message() {
    let link = parse_discord_link("https://discord.com/channels/@me/2/3").unwrap();
    assert_eq!(link.guild, None);
    assert_eq!(link.message, MessageId::parse("3"));
    assert_eq!(link.url(), "https://discord.com/channels/@me/2/3");
    assert_eq!(
        message_link(None, &link.channel, &MessageId::parse("3").unwrap()),
        "https://discord.com/channels/@me/2/3"
    );
    assert_eq!(
        message_link(
            GuildId::parse("9").as_ref(),
            &link.channel,
            &MessageId::parse("3").unwrap()
        ),
        "https://discord.com/channels/9/2/3"
    );
}

#[test]
fn http_is_refused() {
    assert_eq!(
        refused("http://discord.com/channels/1/2/3"),
        "Discord's links start with https://, not http://"
    );
}

#[test]
fn discordapp_com_is_refused_with_where_to_write_it() {
    assert_eq!(
        refused("https://discordapp.com/channels/1/2/3"),
        "discordapp.com is Discord's old address; copy the link again from Discord, or write \
         discord.com in its place"
    );
    assert_eq!(
        refused("https://canary.discordapp.com/channels/1/2/3"),
        refused("https://discordapp.com/channels/1/2/3")
    );
}

#[test]
fn another_host_is_refused_naming_it() {
    assert_eq!(
        refused("https://example.com/channels/1/2/3"),
        "the link is to example.com, not to Discord (discord.com, ptb.discord.com or \
         canary.discord.com)"
    );
    assert_eq!(
        refused("https://discord.com.example.com/channels/1/2/3"),
        "the link is to discord.com.example.com, not to Discord (discord.com, ptb.discord.com \
         or canary.discord.com)"
    );
    assert_eq!(
        refused("https://discord.gg/abc"),
        "the link is to discord.gg, not to Discord (discord.com, ptb.discord.com or \
         canary.discord.com)"
    );
}

#[test]
fn a_query_or_a_fragment_is_refused() {
    let reason = "a Discord link has no ?… or #… part; leave out everything from the ? or #";
    assert_eq!(refused("https://discord.com/channels/1/2/3?x=1"), reason);
    assert_eq!(refused("https://discord.com/channels/1/2/3#top"), reason);
    assert_eq!(refused("https://discord.com/channels/1/2?"), reason);
}

#[test]
fn a_path_with_parts_missing_or_extra_is_refused() {
    let reason = "a Discord link's path is /channels/<server>/<channel> or \
                  /channels/<server>/<channel>/<message>";
    for text in [
        "https://discord.com",
        "https://discord.com/",
        "https://discord.com/channels/1",
        "https://discord.com/channels/1/2/3/4",
        "https://discord.com/channels/1/2/3/",
        "https://discord.com/guilds/1/2/3",
        "https://discord.com//channels/1/2",
    ] {
        assert_eq!(refused(text), reason, "{text}");
    }
}

#[test]
fn a_part_that_is_not_an_id_is_refused_naming_the_part() {
    assert_eq!(
        refused("https://discord.com/channels/abc/2/3"),
        "the link's server is \"abc\", not an id (a string of 1 to 20 digits or @me)"
    );
    assert_eq!(
        refused("https://discord.com/channels/1/general/3"),
        "the link's channel is \"general\", not an id (a string of 1 to 20 digits)"
    );
    assert_eq!(
        refused("https://discord.com/channels/1/2/0"),
        "the link's message is \"0\", not an id (a string of 1 to 20 digits)"
    );
    assert_eq!(
        refused("https://discord.com/channels/1/2/"),
        "the link's message is \"\", not an id (a string of 1 to 20 digits)"
    );
    assert_eq!(
        refused("https://discord.com/channels/1/2/99999999999999999999"),
        "the link's message is \"99999999999999999999\", not an id (a string of 1 to 20 digits)"
    );
}

#[test]
fn text_that_is_no_address_is_refused() {
    assert_eq!(
        refused("discord.com/channels/1/2/3"),
        "it is neither an id nor a link starting with https://"
    );
    assert_eq!(
        refused("ftp://discord.com/channels/1/2/3"),
        "it is neither an id nor a link starting with https://"
    );
    assert!(looks_like_a_link("discord.com/channels/1/2/3"));
    assert!(looks_like_a_link("https://x"));
    assert!(!looks_like_a_link("12ab"));
    assert!(!looks_like_a_link("1189078123456789012"));
}

#[test]
fn the_schema_patterns_accept_what_the_parser_accepts() {
    // The patterns are what MCP clients see; the parser is what the input layer holds to. A
    // few cases of each kind, checked by hand against the regular expressions' parts.
    assert!(ID_OR_LINK_PATTERN.contains("((ptb|canary)\\.)?discord\\.com"));
    assert!(ID_OR_LINK_PATTERN.contains("([0-9]{1,20}|@me)"));
    assert!(ID_OR_LINK_PATTERN.ends_with("(/[0-9]{1,20})?)$"));
    assert!(MESSAGE_ID_OR_LINK_PATTERN.ends_with("/[0-9]{1,20}/[0-9]{1,20})$"));
}
