package dev.herald.platforms.weixin;

import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.EventIds;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a read message into the event the gateway takes: a one-to-one chat is keyed by the sender, a group chat by its
 * {@code group_id} (with the sender as the user, so the core's session policy applies as on other platforms). A group
 * message starts a turn only when it names the bot ({@code require_mention} with {@code mention_names}, since iLink marks
 * no mentions); the name is taken out of the text. Media are received ({@link WeixinMedia}) only for messages that will be
 * taken, and downloaded at once only from senders on the allowlist (a stranger's files wait for a turn, which the gateway
 * may never run); a file refused (over the cap, undecryptable, gone from the CDN) leaves a line in the text saying so, and
 * the text still gets through.
 */
final class WeixinEvents {
    private static final Logger log = LoggerFactory.getLogger(WeixinEvents.class);
    /** WeChat writes a four-per-em space after an @mention. */
    private static final Pattern SPACES = Pattern.compile("[\\s\\u2005\\u3000]+");

    private final Platform platform;
    private final WeixinState state;
    private final WeixinMedia media;
    private final boolean requireMention;
    private final List<Pattern> mentions;
    private final java.util.function.Predicate<String> listed;
    private final Clock clock;

    /** @param listed whether a sender is on the allowlist: only their media are downloaded at once, others' when a turn asks */
    WeixinEvents(Platform platform, WeixinState state, WeixinMedia media, boolean requireMention, List<String> mentionNames,
            java.util.function.Predicate<String> listed, Clock clock) {
        this.listed = listed;
        this.platform = platform;
        this.state = state;
        this.media = media;
        this.requireMention = requireMention;
        this.clock = clock;
        this.mentions = mentionNames.stream().map(n -> Pattern.compile("@" + Pattern.quote(n) + "|(?<![\\p{L}\\p{N}_])" + Pattern.quote(n)
                + "(?![\\p{L}\\p{N}_])", Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE)).toList();
    }

    Optional<MessageEvent> event(WeixinMessages.Inbound in) {
        boolean group = in.groupId() != null;
        String chat = in.chatId();
        state.rememberToken(chat, in.contextToken());
        String text = in.text();
        StringBuilder heard = new StringBuilder();
        for (WeixinMessages.MediaItem m : in.media()) {
            if (m.transcript() != null) {
                heard.append(heard.isEmpty() ? "" : "\n").append(m.transcript());
            }
        }
        if (group && requireMention && !mentioned(text + "\n" + heard)) {
            log.debug("{} - group message {} names none of mention_names (require_mention); not answered", platform, in.messageId());
            return Optional.empty();
        }
        if (group) {
            text = withoutMention(text);
        }
        List<MessageEvent.MediaRef> refs = new ArrayList<>();
        boolean eager = listed.test(in.fromUser());
        List<String> notes = new ArrayList<>();
        for (WeixinMessages.MediaItem m : in.media()) {
            try {
                refs.add(eager ? media.receive(m) : media.refer(m));
            } catch (IOException | RuntimeException e) {
                String why = e instanceof IOException ? e.getMessage() : "it could not be read";
                log.warn("{} - the {} in message {} was refused: {}", platform, m.kind(), in.messageId(), why);
                notes.add("(The " + m.kind() + (m.name() != null ? " " + m.name() : "") + " sent with this message was not received: "
                        + why + ".)");
            }
            if (m.transcript() != null) {
                notes.add("(Voice message, as WeChat transcribed it: " + m.transcript() + ")");
            }
        }
        StringBuilder all = new StringBuilder(text);
        for (String n : notes) {
            all.append(all.isEmpty() ? "" : "\n").append(n);
        }
        if (all.toString().isBlank() && refs.isEmpty()) {
            log.info("{} - message {} from user {} has nothing Herald reads ({} item(s) of other kinds), skipped", platform,
                    in.messageId(), in.fromUser(), in.skipped());
            return Optional.empty();
        }
        SessionSource source = group ? new SessionSource(platform, chat, ChatType.GROUP, in.fromUser(), null, null, null)
                : SessionSource.dm(platform, chat, in.fromUser());
        return Optional.of(new MessageEvent(EventIds.next(), source, all.toString(),
                in.messageId() == null ? null : chat + ":" + in.messageId(), null, refs, MessageEvent.Origin.USER, clock.instant()));
    }

    private boolean mentioned(String text) {
        return mentions.stream().anyMatch(p -> p.matcher(text).find());
    }

    private String withoutMention(String text) {
        String out = text;
        for (Pattern p : mentions) {
            out = p.matcher(out).replaceFirst("");
        }
        return SPACES.matcher(out).replaceAll(" ").strip();
    }
}
