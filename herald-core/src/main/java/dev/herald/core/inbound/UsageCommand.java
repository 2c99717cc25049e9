package dev.herald.core.inbound;

import dev.herald.core.account.Identities;
import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ModelOption;
import dev.herald.core.lanes.UsageFooter;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.SessionEntry;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.SenderUsage;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code /usage}: the model tokens of the chat's last answer, of its current conversation (the lane's counts, as
 * {@code /status} shows them) and of the sender's turns in this chat since midnight UTC, from what the store recorded
 * per turn, and, for a web account or a chat linked to one ({@code /link}), of the day over all the account's chats. When
 * the chat's model profile has prices ({@code price_per_million}), each line also shows what those tokens
 * cost at that profile's prices (the turns of the day may have run on another profile; the line says which prices).
 * {@code /usage footer on|off} sets the chat's {@link UsageFooter}.
 */
final class UsageCommand {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(UsageCommand.class);
    /** Turns added up for a day at most (a chat with more shows a lower bound, and says so). */
    static final int DAY_LIMIT = 2_000;

    private final Storage storage;
    private final Turns turns;
    private final Agent agent;
    private final Clock clock;
    private final Identities identities;

    UsageCommand(Storage storage, Turns turns, Agent agent, Clock clock) {
        this.storage = storage;
        this.identities = new Identities(storage.identityLinks(), clock);
        this.turns = turns;
        this.agent = agent;
        this.clock = clock;
    }

    /** The chat's model profile (its /model choice while configured, else the default), if the agent has profiles. */
    private Optional<ModelOption> profile(SessionKey key) {
        return UsageFooter.profile(agent, storage.modelChoices(), key);
    }

    String handle(MessageEvent event, SessionKey key) {
        String args = event.commandArgs().strip().toLowerCase(Locale.ROOT);
        if (args.startsWith("footer")) {
            return footer(key, args.substring("footer".length()).strip());
        }
        if (!args.isEmpty()) {
            return "Usage: /usage: the tokens of the last answer, of this conversation and of today; /usage footer on|off: "
                    + "a line with them under every answer.";
        }
        Optional<SessionEntry> entry = storage.sessions().find(key);
        if (entry.isEmpty()) {
            return "No usage yet: this chat has no conversation. Your first message starts one.";
        }
        Optional<ModelOption> profile = profile(key).filter(p -> p.prices().known());
        ModelOption.Prices prices = profile.map(ModelOption::prices).orElse(ModelOption.Prices.NONE);
        StringBuilder sb = new StringBuilder("Model tokens (in / out):\n");
        Optional<TurnRecord> last = turns.latestStarted(key);
        sb.append("Last answer: ").append(last.map(t -> tokens(t.inputTokens(), t.outputTokens(), prices)).orElse("none yet")).append('\n');
        sb.append("This conversation: ").append(tokens(entry.get().inputTokens(), entry.get().outputTokens(), prices)).append('\n');
        Instant midnight = LocalDate.now(clock.withZone(ZoneOffset.UTC)).atStartOfDay(ZoneOffset.UTC).toInstant();
        List<TurnRecord> today = turns.startedSince(key, midnight, DAY_LIMIT);
        String user = event.source().userId();
        long in = 0;
        long out = 0;
        int count = 0;
        for (TurnRecord t : today) {
            if (user == null || Objects.equals(user, t.source().userId())) {
                in += t.inputTokens();
                out += t.outputTokens();
                count++;
            }
        }
        sb.append("Today (UTC), your messages in this chat: ").append(tokens(in, out, prices)).append(" over ").append(count)
                .append(count == 1 ? " turn" : " turns");
        if (today.size() >= DAY_LIMIT) {
            sb.append(" (the newest ").append(DAY_LIMIT).append(" turns only)");
        }
        // a web account, or a chat linked to one (/link): the day over every chat of the account
        identities.account(Identities.identityOf(event.source())).ifPresent(account -> {
            SenderUsage u = storage.turns().usage(Map.of(account, Identities.senders(account, identities.links(account))), midnight,
                    midnight).getOrDefault(account, SenderUsage.NONE);
            sb.append("\nToday (UTC), all your chats as ").append(account).append(": ").append(tokens(u.inputToday(), u.outputToday(),
                    prices)).append(" over ").append(u.turnsToday()).append(u.turnsToday() == 1 ? " turn" : " turns");
        });
        profile.ifPresent(p -> sb.append("\nCosts at the prices of ").append(p.name()).append(" (").append(p.model())
                .append("), per million tokens: ").append(amount(p.prices().input())).append(" in / ")
                .append(amount(p.prices().output())).append(" out"));
        return sb.toString();
    }

    /** {@code /usage footer [on|off]}: shows or sets the chat's {@link UsageFooter}. */
    private String footer(SessionKey key, String word) {
        ChatPreferences preferences = storage.chatPreferences();
        switch (word) {
            case "" -> {
                return "Usage footer in this chat: " + (UsageFooter.on(preferences, key) ? "on" : "off")
                        + ". Change it with /usage footer on or /usage footer off.";
            }
            case "on", "off" -> {
                preferences.set(key, UsageFooter.PREFERENCE, word.equals("on") ? "on" : null);
                log.info("gateway - {} turned the usage footer {}", key, word);
                return word.equals("on") ? "Usage footer on: every answer in this chat ends with its tokens"
                        + (profile(key).filter(p -> p.prices().known()).isPresent() ? " and their cost." : ".")
                        : "Usage footer off.";
            }
            default -> {
                return "Usage: /usage footer on or /usage footer off (a line with the answer's tokens under every answer).";
            }
        }
    }

    private static String tokens(long in, long out, ModelOption.Prices prices) {
        String t = String.format(Locale.ROOT, "%,d / %,d", in, out);
        return prices.known() ? t + " (cost " + amount(prices.cost(in, out)) + ")" : t;
    }

    /** A price or cost: four decimals below one, else two. */
    static String amount(double value) {
        return UsageFooter.amount(value);
    }
}
