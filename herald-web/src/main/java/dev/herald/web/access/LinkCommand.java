package dev.herald.web.access;

import dev.herald.core.account.Identities;
import dev.herald.core.inbound.CommandExtension;
import dev.herald.core.platform.ChatType;
import dev.herald.core.platform.MessageEvent;
import dev.herald.core.session.SessionKey;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * {@code /link}: links the sender's chat identity to their web account, so their memory is the account's wherever they
 * talk. {@code /link} answers a one-time code (in a direct chat only: in a group everyone would read it), which the user
 * enters in the web chat, signed in, under "Linked chats"; {@code /link status} says which account the identity speaks
 * as; {@code /link remove} unlinks it. In the web chat and over the API the user is an account already.
 */
public final class LinkCommand implements CommandExtension {
    static final String USAGE = "/link - a one-time code to link this chat account to your Herald web account; "
            + "/link status - which account you are linked to; /link remove - unlink";

    private final Identities identities;

    public LinkCommand(Identities identities) {
        this.identities = Objects.requireNonNull(identities, "identities");
    }

    @Override
    public String name() {
        return "link";
    }

    @Override
    public String help() {
        return "/link [status|remove] - link this chat account to your Herald web account";
    }

    @Override
    public String handle(MessageEvent event, SessionKey key, boolean admin) {
        String identity = Identities.identityOf(event.source());
        if (identity == null) {
            return "This chat does not say who you are, so it cannot be linked to an account.";
        }
        if (Identities.isAccount(identity)) {
            return "You are signed in to your Herald account here already; /link is for your other chats (Telegram, Discord, "
                    + "Slack, ...): send it there.";
        }
        String args = event.commandArgs().strip().toLowerCase(Locale.ROOT);
        return switch (args) {
            case "" -> code(event, identity);
            case "status" -> identities.account(identity).map(a -> "This chat account (" + identity + ") is linked to the Herald "
                    + "account '" + a + "': your memory here is that account's. /link remove unlinks it.")
                    .orElse("This chat account (" + identity + ") is not linked to a Herald account. /link gives you a code to link it.");
            case "remove", "off", "unlink" -> identities.unlink(identity, null)
                    ? "Unlinked: this chat account (" + identity + ") has its own memory again."
                    : "This chat account is not linked to a Herald account.";
            default -> "Usage: " + USAGE;
        };
    }

    private String code(MessageEvent event, String identity) {
        if (event.source().chatType() != ChatType.DM) {
            return "Send /link to me in a direct message: a link code in a group could be read by everyone here.";
        }
        String linked = identities.account(identity).map(a -> "\nThis chat account is linked to '" + a + "' now; entering the "
                + "code as another account asks that account to unlink first (/link remove).").orElse("");
        String code = identities.issueCode(identity);
        return "Your link code: " + code + "\nSign in to Herald's web chat and enter it under \"Linked chats\" within "
                + Identities.CODE_TTL.toMinutes() + " minutes. It works once; do not share it." + linked;
    }

    @Override
    public List<String> statusLines(MessageEvent event, SessionKey key, boolean admin) {
        String identity = Identities.identityOf(event.source());
        if (identity == null || Identities.isAccount(identity)) {
            return List.of();
        }
        return identities.account(identity).map(a -> List.of("Linked to the Herald account '" + a + "'")).orElse(List.of());
    }
}
