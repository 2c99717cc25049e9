package dev.herald.core.lanes;

import dev.herald.core.agent.Agent;
import dev.herald.core.agent.ModelOption;
import dev.herald.core.session.ChatPreferences;
import dev.herald.core.session.ModelChoiceStore;
import dev.herald.core.session.SessionKey;
import dev.herald.core.session.Storage;
import dev.herald.core.turn.TurnOutcome;
import dev.herald.core.turn.TurnRecord;
import dev.herald.core.turn.Turns;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The usage footer a chat may ask for ({@code /usage footer on}): a short last line under each answer with the turn's
 * model tokens, and their cost when the chat's model profile has prices ({@code price_per_million}). The choice is a
 * chat preference ({@value #PREFERENCE}, value {@code on}; no row is off), kept across {@code /new}. The footer is added
 * to the delivered reply only: the transcript, and so what the model reads later, keeps the answer without it.
 */
public final class UsageFooter {
    /** The chat preference's name. */
    public static final String PREFERENCE = "usage_footer";

    private UsageFooter() {
    }

    /**
     * {@code reply} with the footer when the chat asked for one and the turn answered (not for an error text): the turn's
     * tokens as recorded so far, at the prices of the chat's model profile.
     */
    public static String append(Storage storage, Agent agent, Turns turns, TurnRecord turn, TurnOutcome outcome, String reply) {
        if (reply.isBlank() || outcome instanceof TurnOutcome.Errored || outcome instanceof TurnOutcome.Failed
                || !on(storage.chatPreferences(), turn.sessionKey())) {
            return reply;
        }
        TurnRecord now = turns.find(turn.id()).orElse(turn);
        ModelOption.Prices prices = profile(agent, storage.modelChoices(), turn.sessionKey()).map(ModelOption::prices)
                .orElse(ModelOption.Prices.NONE);
        return reply + "\n\n" + line(now.inputTokens(), now.outputTokens(), prices);
    }

    /** Whether the chat of {@code key} asked for the footer. */
    public static boolean on(ChatPreferences preferences, SessionKey key) {
        return preferences.get(key, PREFERENCE).map("on"::equals).orElse(false);
    }

    /** The chat's model profile (its /model choice while configured, else the default), if the agent has profiles. */
    public static Optional<ModelOption> profile(Agent agent, ModelChoiceStore choices, SessionKey key) {
        List<ModelOption> options = agent.models();
        if (options.isEmpty()) {
            return Optional.empty();
        }
        Optional<String> chosen = choices.chosen(key);
        return Optional.of(options.stream().filter(o -> chosen.isPresent() && o.name().equals(chosen.get())).findFirst()
                .orElse(options.getFirst()));
    }

    /** The footer line: {@code ─ 1,234 in / 56 out tokens · cost 0.0012}. */
    public static String line(long in, long out, ModelOption.Prices prices) {
        String tokens = String.format(Locale.ROOT, "\u2500 %,d in / %,d out tokens", in, out);
        return prices.known() ? tokens + " \u00b7 cost " + amount(prices.cost(in, out)) : tokens;
    }

    /** A price or cost: four decimals below one, else two. */
    public static String amount(double value) {
        return String.format(Locale.ROOT, value < 1 ? "%.4f" : "%,.2f", value);
    }
}
