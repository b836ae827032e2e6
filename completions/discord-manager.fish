# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_discord_manager_global_optspecs
    string join \n json db= h/help V/version
end

function __fish_discord_manager_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_discord_manager_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_discord_manager_using_subcommand
    set -l cmd (__fish_discord_manager_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c discord-manager -n "__fish_discord_manager_needs_command" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_needs_command" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -s V -l version -d 'Print version'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "catch-up" -d 'Catch up: the messages that arrived at or after `since`, grouped by channel, oldest first, each with its current content, edited/deleted flags, reactions and reply target.'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "history" -d 'Read a channel\'s stored history around a point, oldest first: each message with every version of its content (`originalContent`, then `edits` with when each was made) and its deletion, so "what did it say before it was edited" is answerable.'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "search" -d 'Full-text search over every stored message, earlier versions of edited messages included, best match first, each with a snippet where the matched words are marked [like this].'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "send" -d 'Post a message as the owner\'s bot, optionally as a reply, and get the message as the store recorded it.'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "wait" -d 'Wait for activity (the cursor tool): counts of messages, edits, deletions and reactions stored strictly after `after`, per channel, and the `cutoff` to pass back.'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "digest" -d 'A digest of a window, deterministic (no language model): per channel the number of messages, the most active authors and the most-reacted messages; then the owner\'s mentions in the window still awaiting an answer, and every open bookmark.'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "channels" -d 'Channels and threads in scope'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "mentions" -d 'Messages that mention you'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "bookmarks" -d 'Keep messages to come back to: add, list, resolve'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "schedules" -d 'Messages to send later as the bot: add, list, cancel'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "seed" -d 'Build a demo store from the scripted feed in seed/ (no Discord token needed)'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "mcp" -d 'Serve every capability as an MCP tool over stdio'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c discord-manager -n "__fish_discord_manager_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand catch-up" -l channel-id -d 'Only this channel or thread. Default: every readable channel in scope.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand catch-up" -l limit -d 'At most this many messages per channel; a channel with more says `more: true`. Default 50, from 1 to 500.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand catch-up" -l since -d 'Messages that arrived at or after this instant (inclusive, on the store\'s arrival clock). Default: 24 hours ago.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand catch-up" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand catch-up" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand catch-up" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -l after -d 'Messages strictly after this message id, or sent at or after this instant (Discord\'s time).' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -l around -d 'Messages around this message id or instant: half before, the rest from it on.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -l before -d 'Messages strictly before this message id, or sent before this instant (Discord\'s time).' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -l channel-id -d 'The channel or thread to read.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -l limit -d 'At most this many messages. Default 50, from 1 to 200.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l author-id -d 'Only messages by this user.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l channel-id -d 'Only this channel or thread. Default: every readable channel in scope.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l limit -d 'At most this many results. Default 20, from 1 to 100.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l query -d 'What to look for: words, or FTS5 search syntax; 1 to 500 characters.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l since -d 'Only messages that arrived at or after this instant (the store\'s arrival clock).' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l until -d 'Only messages that arrived before this instant (the store\'s arrival clock).' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand send" -l channel-id -d 'The channel or thread to post in.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand send" -l content -d 'What to say: 1 to 2000 characters, not only spaces (Discord\'s markdown applies).' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand send" -l reply-to-message-id -d 'Post it as a reply to this message of the same channel. Default: not a reply.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand send" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand send" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand send" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand wait" -l after -d 'Count what the store recorded strictly after this instant (the store\'s arrival clock); pass the previous call\'s `cutoff`. Default: now.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand wait" -l channel-id -d 'Only this channel or thread. Default: every readable channel in scope.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand wait" -l wait-seconds -d 'Wait up to this many seconds for something to arrive. Default 0 (answer at once), from 0 to 60.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand wait" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand wait" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand wait" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand digest" -l since -d 'The window\'s start, inclusive. Default: 24 hours before `until`.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand digest" -l until -d 'The window\'s end, exclusive. Default: now.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand digest" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand digest" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand digest" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and not __fish_seen_subcommand_from list help" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and not __fish_seen_subcommand_from list help" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and not __fish_seen_subcommand_from list help" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and not __fish_seen_subcommand_from list help" -f -a "list" -d 'List the channels and threads in scope: id, name, kind, parent, whether the bot can read each (and why not), when its newest message arrived and how many arrived since `since`.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and not __fish_seen_subcommand_from list help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and __fish_seen_subcommand_from list" -l since -d 'Count messages that arrived at or after this instant (inclusive, on the store\'s arrival clock). Default: 24 hours ago.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and __fish_seen_subcommand_from list" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and __fish_seen_subcommand_from list" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the channels and threads in scope: id, name, kind, parent, whether the bot can read each (and why not), when its newest message arrived and how many arrived since `since`.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand channels; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and not __fish_seen_subcommand_from list awaiting-reply help" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and not __fish_seen_subcommand_from list awaiting-reply help" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and not __fish_seen_subcommand_from list awaiting-reply help" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and not __fish_seen_subcommand_from list awaiting-reply help" -f -a "list" -d 'List messages that mention the owner and arrived at or after `since`, oldest first: a direct mention, a role the owner holds, @everyone or @here, or a reply to one of the owner\'s messages.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and not __fish_seen_subcommand_from list awaiting-reply help" -f -a "awaiting-reply" -d 'List the owner\'s mentions still awaiting an answer, oldest first: mentions (as `mentions_list` finds them: direct, a role the owner holds, @everyone/@here, replies to the owner) after which the owner has not written in that channel or thread, and that have been silent for longer than `silenceMinutes` (measured from Discord\'s time of the mention).'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and not __fish_seen_subcommand_from list awaiting-reply help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from list" -l limit -d 'At most this many mentions; `more: true` says there are others. Default 50, from 1 to 500.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from list" -l since -d 'Mentions that arrived at or after this instant (inclusive, on the store\'s arrival clock). Default: 24 hours ago.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from list" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from list" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from awaiting-reply" -l limit -d 'At most this many mentions. Default 50, from 1 to 500.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from awaiting-reply" -l silence-minutes -d 'Only mentions older than this many minutes. Default 60, from 0 to 10080 (a week).' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from awaiting-reply" -l since -d 'Mentions that arrived at or after this instant (inclusive, on the store\'s arrival clock). Default: 7 days ago.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from awaiting-reply" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from awaiting-reply" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from awaiting-reply" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from help" -f -a "list" -d 'List messages that mention the owner and arrived at or after `since`, oldest first: a direct mention, a role the owner holds, @everyone or @here, or a reply to one of the owner\'s messages.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from help" -f -a "awaiting-reply" -d 'List the owner\'s mentions still awaiting an answer, oldest first: mentions (as `mentions_list` finds them: direct, a role the owner holds, @everyone/@here, replies to the owner) after which the owner has not written in that channel or thread, and that have been silent for longer than `silenceMinutes` (measured from Discord\'s time of the mention).'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mentions; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and not __fish_seen_subcommand_from add list resolve help" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and not __fish_seen_subcommand_from add list resolve help" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and not __fish_seen_subcommand_from add list resolve help" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and not __fish_seen_subcommand_from add list resolve help" -f -a "add" -d 'Bookmark a stored message, with an optional note, to come back to it later with `bookmarks_list`.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and not __fish_seen_subcommand_from add list resolve help" -f -a "list" -d 'List the open bookmarks, oldest first, each with the message\'s content as it was when bookmarked and the message as it is now (edited, deleted).'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and not __fish_seen_subcommand_from add list resolve help" -f -a "resolve" -d 'Resolve (close) the open bookmark of a message; it leaves `bookmarks_list` and the store keeps the record of when and from where it was resolved.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and not __fish_seen_subcommand_from add list resolve help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from add" -l message-id -d 'The message to bookmark.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from add" -l note -d 'Why it matters; up to 1000 characters. Default: no note.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from add" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from add" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from list" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from list" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from resolve" -l message-id -d 'The bookmarked message.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from resolve" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from resolve" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from resolve" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from help" -f -a "add" -d 'Bookmark a stored message, with an optional note, to come back to it later with `bookmarks_list`.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the open bookmarks, oldest first, each with the message\'s content as it was when bookmarked and the message as it is now (edited, deleted).'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from help" -f -a "resolve" -d 'Resolve (close) the open bookmark of a message; it leaves `bookmarks_list` and the store keeps the record of when and from where it was resolved.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand bookmarks; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and not __fish_seen_subcommand_from add list cancel help" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and not __fish_seen_subcommand_from add list cancel help" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and not __fish_seen_subcommand_from add list cancel help" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and not __fish_seen_subcommand_from add list cancel help" -f -a "add" -d 'Schedule a message to be posted as the owner\'s bot at an instant, optionally as a reply; the ingest daemon sends it when it is due, retrying if Discord is busy, and never twice.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and not __fish_seen_subcommand_from add list cancel help" -f -a "list" -d 'List scheduled messages by when they are (or were) to be sent, soonest first: pending ones, sent ones with the message Discord created, failed ones with why, cancelled ones.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and not __fish_seen_subcommand_from add list cancel help" -f -a "cancel" -d 'Cancel a scheduled message that has not been sent yet; it will never be sent.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and not __fish_seen_subcommand_from add list cancel help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from add" -l channel-id -d 'The channel or thread to post in.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from add" -l content -d 'What to say: 1 to 2000 characters, not only spaces (Discord\'s markdown applies).' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from add" -l reply-to-message-id -d 'Post it as a reply to this message of the same channel. Default: not a reply.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from add" -l send-at -d 'When to send it. An instant up to 5 minutes in the past is accepted and sent at once.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from add" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from add" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from add" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from list" -l status -d 'Only scheduled messages in this state. Default: every state.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from list" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from list" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from cancel" -l schedule-id -d 'The scheduled message, as `schedules_add` or `schedules_list` gave its `scheduleId`.' -r
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from cancel" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from cancel" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from cancel" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from help" -f -a "add" -d 'Schedule a message to be posted as the owner\'s bot at an instant, optionally as a reply; the ingest daemon sends it when it is due, retrying if Discord is busy, and never twice.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from help" -f -a "list" -d 'List scheduled messages by when they are (or were) to be sent, soonest first: pending ones, sent ones with the message Discord created, failed ones with why, cancelled ones.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from help" -f -a "cancel" -d 'Cancel a scheduled message that has not been sent yet; it will never be sent.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand schedules; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand seed" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand seed" -l replace -d 'Delete the store first if it is not empty'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand seed" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand seed" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mcp" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mcp" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand mcp" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand completions" -l db -d 'The store\'s path [default: DISCORD_MANAGER_DB, else the user\'s data directory]' -r -F
complete -c discord-manager -n "__fish_discord_manager_using_subcommand completions" -l json -d 'Print the result as JSON (exactly the MCP tool\'s structured result)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand completions" -s h -l help -d 'Print help'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "catch-up" -d 'Catch up: the messages that arrived at or after `since`, grouped by channel, oldest first, each with its current content, edited/deleted flags, reactions and reply target.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "history" -d 'Read a channel\'s stored history around a point, oldest first: each message with every version of its content (`originalContent`, then `edits` with when each was made) and its deletion, so "what did it say before it was edited" is answerable.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "search" -d 'Full-text search over every stored message, earlier versions of edited messages included, best match first, each with a snippet where the matched words are marked [like this].'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "send" -d 'Post a message as the owner\'s bot, optionally as a reply, and get the message as the store recorded it.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "wait" -d 'Wait for activity (the cursor tool): counts of messages, edits, deletions and reactions stored strictly after `after`, per channel, and the `cutoff` to pass back.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "digest" -d 'A digest of a window, deterministic (no language model): per channel the number of messages, the most active authors and the most-reacted messages; then the owner\'s mentions in the window still awaiting an answer, and every open bookmark.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "channels" -d 'Channels and threads in scope'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "mentions" -d 'Messages that mention you'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "bookmarks" -d 'Keep messages to come back to: add, list, resolve'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "schedules" -d 'Messages to send later as the bot: add, list, cancel'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "seed" -d 'Build a demo store from the scripted feed in seed/ (no Discord token needed)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "mcp" -d 'Serve every capability as an MCP tool over stdio'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and not __fish_seen_subcommand_from catch-up history search send wait digest channels mentions bookmarks schedules seed mcp completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from channels" -f -a "list" -d 'List the channels and threads in scope: id, name, kind, parent, whether the bot can read each (and why not), when its newest message arrived and how many arrived since `since`.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from mentions" -f -a "list" -d 'List messages that mention the owner and arrived at or after `since`, oldest first: a direct mention, a role the owner holds, @everyone or @here, or a reply to one of the owner\'s messages.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from mentions" -f -a "awaiting-reply" -d 'List the owner\'s mentions still awaiting an answer, oldest first: mentions (as `mentions_list` finds them: direct, a role the owner holds, @everyone/@here, replies to the owner) after which the owner has not written in that channel or thread, and that have been silent for longer than `silenceMinutes` (measured from Discord\'s time of the mention).'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from bookmarks" -f -a "add" -d 'Bookmark a stored message, with an optional note, to come back to it later with `bookmarks_list`.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from bookmarks" -f -a "list" -d 'List the open bookmarks, oldest first, each with the message\'s content as it was when bookmarked and the message as it is now (edited, deleted).'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from bookmarks" -f -a "resolve" -d 'Resolve (close) the open bookmark of a message; it leaves `bookmarks_list` and the store keeps the record of when and from where it was resolved.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from schedules" -f -a "add" -d 'Schedule a message to be posted as the owner\'s bot at an instant, optionally as a reply; the ingest daemon sends it when it is due, retrying if Discord is busy, and never twice.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from schedules" -f -a "list" -d 'List scheduled messages by when they are (or were) to be sent, soonest first: pending ones, sent ones with the message Discord created, failed ones with why, cancelled ones.'
complete -c discord-manager -n "__fish_discord_manager_using_subcommand help; and __fish_seen_subcommand_from schedules" -f -a "cancel" -d 'Cancel a scheduled message that has not been sent yet; it will never be sent.'
