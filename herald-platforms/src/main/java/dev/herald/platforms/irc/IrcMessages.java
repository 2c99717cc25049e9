package dev.herald.platforms.irc;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionSource;
import dev.herald.platforms.common.PlatformIds;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a PRIVMSG into a {@link MessageEvent}, or into nothing for what Herald does not answer.
 *
 * <p>Where a message lands: sent to the bot's nick, a direct message (chat = the sender's nick: one session per nick);
 * sent to a channel, chat type {@code group} with chat = the channel and thread = the sender's nick, so each person has
 * a session of their own in each channel and every reply (a resumed one after a restart too) is addressed to them by
 * name ({@code alice: ...}). In a channel, with {@code require_mention} (the default), only a message addressed to the
 * bot ({@code herald: ...}, {@code herald, ...}, by its current nick or the configured one) is taken, with the address
 * removed.
 *
 * <p>Who wrote: the sender's account when the server reports accounts (an account tag on the message, or what
 * extended-join and account-notify said), else the nick. On a server that reports accounts, a message from someone not
 * logged in has no identity Herald can trust: it is not taken, and a direct message gets one NOTICE saying why.
 *
 * <p>Not taken, with a log line naming the problem: text that is not valid UTF-8, a PRIVMSG without a target or text.
 * Not taken silently: the bot's own messages, CTCP requests ({@code \u0001VERSION\u0001}, {@code /me} actions), messages
 * to a target that is neither the bot nor a channel. IRC messages have no id unless the server tags them
 * ({@code msgid}); without one an event has none and is never deduplicated (IRC never delivers a line twice).
 */
final class IrcMessages {
    private static final Logger log = LoggerFactory.getLogger(IrcMessages.class);
    private static final int MAX_TOLD = 10_000;

    /** What became of one PRIVMSG: an event, or nothing with an optional NOTICE for the sender. */
    record Outcome(Optional<MessageEvent> event, String notice) {
        static Outcome none() {
            return new Outcome(Optional.empty(), null);
        }
    }

    private final IrcSettings settings;
    private final Clock clock;
    private final Set<String> toldToLogIn = ConcurrentHashMap.newKeySet();
    private volatile dev.herald.core.platform.ChannelOverrides overrides = dev.herald.core.platform.ChannelOverrides.NONE;

    /** The operator's settings for single chats: a channel's {@code require_mention} wins over the platform's. */
    void useChannels(dev.herald.core.platform.ChannelOverrides o) {
        this.overrides = java.util.Objects.requireNonNull(o, "overrides");
    }

    IrcMessages(IrcSettings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
    }

    Outcome normalise(IrcClient.Inbound in) {
        IrcLine l = in.line();
        String from = l.nick();
        String target = l.param(0);
        String text = l.params().size() >= 2 ? l.last() : null;
        if (from == null || target == null || text == null || from.isBlank()) {
            log.warn("irc - skipped a PRIVMSG without a sender, target or text ({})", l.describe());
            return Outcome.none();
        }
        if (IrcIds.same(from, in.ownNick())) {
            return Outcome.none();
        }
        if (!IrcIds.isSenderName(from)) {
            log.warn("irc - skipped a message whose sender is not a nick ({} characters, with spaces, control characters or wildcards)",
                    from.length());
            return Outcome.none();
        }
        if (l.badUtf8()) {
            log.warn("irc - skipped a message from {} to {}: its text is not valid UTF-8 (set the client's encoding to UTF-8)",
                    IrcClient.printable(from), IrcClient.printable(target));
            return Outcome.none();
        }
        if (text.startsWith("\u0001")) {
            log.debug("irc - CTCP from {} ignored", from);
            return Outcome.none();
        }
        boolean direct = IrcIds.same(target, in.ownNick());
        boolean channel = IrcIds.isChannelName(target);
        if (!direct && !channel) {
            return Outcome.none(); // @#channel (to operators), $mask (server broadcast) or a nick that is not ours
        }
        if (channel) {
            String addressed = addressed(text, in.ownNick());
            if (addressed == null && overrides.requireMention(IrcAdapter.PLATFORM, IrcIds.fold(target), settings.requireMention())) {
                return Outcome.none();
            }
            text = addressed == null ? text : addressed;
        }
        text = text.strip();
        if (text.isEmpty()) {
            return Outcome.none();
        }
        String userId;
        if (in.accounts()) {
            if (in.account() != null && !IrcIds.isSenderName(in.account())) {
                log.warn("irc - skipped a message from {}: its account tag is not an account name", IrcClient.printable(from));
                return Outcome.none();
            }
            if (in.account() == null) {
                log.info("irc - {} wrote to {} without being logged in to an account; not taken (the server reports accounts, and "
                        + "allowed_users are accounts)", IrcClient.printable(from), IrcClient.printable(target));
                String notice = direct && toldOnce(from)
                        ? "I only answer people logged in to an account here (SASL or NickServ). Log in, then write again." : null;
                return new Outcome(Optional.empty(), notice);
            }
            userId = IrcIds.fold(in.account());
        } else {
            userId = IrcIds.fold(from);
        }
        SessionSource source = direct
                ? new SessionSource(IrcAdapter.PLATFORM, IrcIds.fold(from), ChatType.DM, userId, from, null, null)
                : new SessionSource(IrcAdapter.PLATFORM, IrcIds.fold(target), ChatType.GROUP, userId, from, IrcIds.fold(from), target);
        String messageId = PlatformIds.clean(l.tags().get("msgid"));
        return new Outcome(Optional.of(new MessageEvent(EventIds.next(), source, text, messageId, null, List.of(), MessageEvent.Origin.USER,
                clock.instant())), null);
    }

    /** The text after {@code nick:} or {@code nick,} (the current or the configured nick, any case), or null when not addressed. */
    String addressed(String text, String ownNick) {
        for (String n : List.of(ownNick, settings.nick())) {
            if (text.length() > n.length() && text.regionMatches(true, 0, n, 0, n.length())) {
                char after = text.charAt(n.length());
                if (after == ':' || after == ',') {
                    return text.substring(n.length() + 1);
                }
            }
        }
        return null;
    }

    private boolean toldOnce(String nick) {
        if (toldToLogIn.size() >= MAX_TOLD) {
            toldToLogIn.clear();
        }
        return toldToLogIn.add(IrcIds.fold(nick));
    }
}
