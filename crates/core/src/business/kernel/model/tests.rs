//! Unit tests of `model`, kept beside it so the production file reads on its own.

use super::*;

fn message(content: &str) -> MessageBody {
    MessageBody {
        message_id: discord_manager_playback::world::id("1"),
        link: "https://discord.com/channels/@me/2/1".to_string(),
        author_id: discord_manager_playback::world::id("3"),
        author_name: "grace".into(),
        content: content.into(),
        created_at: Instant::from_micros(0),
        sent_at: Instant::from_micros(0),
        edited_at: None,
        deleted: false,
        reply_to_message_id: None,
        reactions: Vec::new(),
        mentions_owner: false,
        author_kind: AuthorKind::Person,
        attachments: Vec::new(),
        embeds: Vec::new(),
        stickers: Vec::new(),
        poll: None,
        forwarded: Vec::new(),
        pinned: false,
        event: None,
        components: Vec::new(),
        command: None,
        refers_to: None,
        voice_message: false,
    }
}

fn attachment(filename: &str, content_type: Option<&str>) -> Attachment {
    Attachment {
        id: discord_manager_playback::world::id("9"),
        filename: filename.into(),
        size: 10,
        content_type: content_type.map(Text::new),
        url: format!("https://cdn.example/{filename}").into(),
        width: None,
        height: None,
        description: None,
        duration_ms: None,
        kept: false,
    }
}

#[test]
fn a_message_without_text_is_never_blank() {
    let image = MessageBody {
        attachments: vec![attachment("cat.png", Some("image/png"))],
        ..message("")
    };
    assert_eq!(image.text_with_extras(), "[image: cat.png]");
    let embed = MessageBody {
        embeds: vec![Embed {
            title: Some("Build #4521 failed".into()),
            url: Some("https://ci.example/4521".into()),
            ..Embed::default()
        }],
        ..message("")
    };
    assert_eq!(embed.text_with_extras(), "[embed: Build #4521 failed]");
    let sticker = MessageBody {
        stickers: vec![Sticker {
            id: discord_manager_playback::world::id("5"),
            name: "Wave".into(),
        }],
        ..message("")
    };
    assert_eq!(sticker.text_with_extras(), "[sticker: Wave]");
    let poll = MessageBody {
        poll: Some(Poll {
            question: "Ship on Thursday?".into(),
            answers: vec![
                PollAnswer {
                    answer_id: 1,
                    text: "Yes".into(),
                    votes: Some(3),
                },
                PollAnswer {
                    answer_id: 2,
                    text: "No".into(),
                    votes: Some(0),
                },
            ],
            ..Poll::default()
        }),
        ..message("")
    };
    assert_eq!(
        poll.text_with_extras(),
        "[poll: Ship on Thursday? — Yes (3) / No (0)]"
    );
    assert_eq!(message("").text_with_extras(), "[no text]");
}

fn part(kind: &str, text: &str, url: Option<&str>) -> ComponentPart {
    ComponentPart {
        kind: kind.into(),
        text: text.into(),
        url: url.map(Text::new),
    }
}

#[test]
fn a_components_v2_post_reads_as_its_text_labels_and_outside_media_never_no_text() {
    let post = MessageBody {
        components: vec![
            part("text", "## Deploy failed", None),
            part("text", "api-gateway, eu-west-2", None),
            part("media", "graph", Some("attachment://graph.png")),
            part("media", "status", Some("https://status.example/s.png")),
            part("file", "deploy.log", Some("attachment://deploy.log")),
            part("button", "Retry", None),
            part("link", "Logs", Some("https://ci.example/7")),
            part("select", "Pick one / a / b", None),
        ],
        attachments: vec![attachment("deploy.log", Some("text/plain"))],
        ..message("")
    };
    assert_eq!(
        post.text_with_extras(),
        "## Deploy failed api-gateway, eu-west-2 [media: status] [button: Retry] \
         [link: Logs] [select: Pick one / a / b] [file: deploy.log]"
    );
}

#[test]
fn a_notice_reads_as_what_happened_and_a_pin_links_to_the_pinned_message() {
    let joined = MessageBody {
        event: Some("joined the server".into()),
        ..message("")
    };
    assert_eq!(joined.text_with_extras(), "joined the server");
    let pinned = MessageBody {
        event: Some("pinned a message".into()),
        refers_to: Some(ReferredMessage {
            guild_id: Some(discord_manager_playback::world::id("12")),
            channel_id: discord_manager_playback::world::id("14"),
            channel_name: Some("general".into()),
            message_id: Some(discord_manager_playback::world::id("15")),
        }),
        ..message("")
    };
    assert_eq!(
        pinned.text_with_extras(),
        "pinned a message (https://discord.com/channels/12/14/15)"
    );
    let thread = MessageBody {
        event: Some("started a thread".into()),
        ..message("Cache eviction")
    };
    assert_eq!(
        thread.text_with_extras(),
        "started a thread: Cache eviction"
    );
}

#[test]
fn a_voice_message_shows_its_length_and_a_commands_answer_who_ran_which_command() {
    let mut voice_note = attachment("voice-message.ogg", Some("audio/ogg"));
    voice_note.duration_ms = Some(7_200);
    let voice = MessageBody {
        attachments: vec![voice_note],
        voice_message: true,
        ..message("")
    };
    assert_eq!(voice.text_with_extras(), "[voice message, 0:08]");
    let answer = MessageBody {
        command: Some(CommandRun {
            name: "/deploy".into(),
            user_id: discord_manager_playback::world::id("2"),
            user_name: "Alice".into(),
        }),
        ..message("Deploying 2.4 to production")
    };
    assert_eq!(
        answer.text_with_extras(),
        "[replying to /deploy by Alice] Deploying 2.4 to production"
    );
}

#[test]
fn a_bots_embed_is_read_beside_the_text_with_every_field_and_a_forward_names_its_source() {
    let alert = MessageBody {
        embeds: vec![Embed {
            kind: Some("rich".into()),
            author: Some("CI".into()),
            fields: vec![EmbedField {
                name: "Branch".into(),
                value: "main".into(),
            }],
            footer: Some("run 7".into()),
            ..Embed::default()
        }],
        ..message("Build failed")
    };
    assert_eq!(
        alert.text_with_extras(),
        "Build failed [embed: CI — Branch: main — run 7]"
    );
    let forward = MessageBody {
        forwarded: vec![Forwarded {
            attachments: vec![attachment("cat.png", Some("image/png"))],
            ..Forwarded::default()
        }],
        refers_to: Some(ReferredMessage {
            guild_id: None,
            channel_id: discord_manager_playback::world::id("14"),
            channel_name: Some("releases".into()),
            message_id: None,
        }),
        ..message("")
    };
    assert_eq!(
        forward.text_with_extras(),
        "[forwarded from #releases: [image: cat.png]]"
    );
}

#[test]
fn text_keeps_its_words_first_and_an_unfurl_does_not_repeat_the_link() {
    let unfurled = MessageBody {
        embeds: vec![Embed {
            kind: Some("article".into()),
            title: Some("Pull Request #77".into()),
            ..Embed::default()
        }],
        attachments: vec![attachment("notes.pdf", Some("application/pdf"))],
        ..message("see https://github.com/x/pull/77")
    };
    assert_eq!(
        unfurled.text_with_extras(),
        "see https://github.com/x/pull/77 [file: notes.pdf]"
    );
}

#[test]
fn extras_at_their_default_are_left_out_of_a_result() {
    let json = serde_json::to_value(message("hi")).unwrap();
    for absent in [
        "attachments",
        "embeds",
        "stickers",
        "poll",
        "forwarded",
        "pinned",
    ] {
        assert!(json.get(absent).is_none(), "{absent} in {json}");
    }
    let pinned = serde_json::to_value(MessageBody {
        pinned: true,
        attachments: vec![attachment("cat.png", Some("image/png"))],
        ..message("hi")
    })
    .unwrap();
    assert_eq!(pinned["pinned"], true);
    assert_eq!(pinned["attachments"][0]["contentType"], "image/png");
    assert_eq!(pinned["attachments"][0].get("width"), None);
}

#[test]
fn a_cursor_reads_back_its_numbers_and_one_of_another_shape_is_refused_naming_the_tool() {
    let cursor = PageCursor::new(&[-5, 7]);
    assert_eq!(cursor.as_str(), "-5_7");
    assert_eq!(cursor.read::<2>("schedules_list").unwrap(), [-5, 7]);
    for refused in [
        cursor.read::<1>("channels_list").unwrap_err(),
        cursor.read::<3>("channels_list").unwrap_err(),
    ] {
        assert_eq!(
            refused.message(),
            "`cursor` is not one channels_list returned: pass its `nextCursor` unchanged"
        );
    }
}
