package dev.herald.core.auth;

import dev.herald.core.platform.Platform;
import dev.herald.core.session.SessionSource;
import java.util.Optional;
import java.util.Set;

/**
 * The configured access rules plus DM pairing: a user is admitted by the rules ({@link Allowlists}) or
 * because an operator approved their pairing code. A refused user who writes in a direct message on a
 * platform that pairs gets a one-time code as the refusal reply; in groups and channels a refusal is
 * silent, so nobody can fish for codes in a shared chat.
 */
public final class PairingAuthorizer implements Authorizer {
    private final Authorizer rules;
    private final Pairing pairing;
    private final Set<Platform> pairingPlatforms;

    /**
     * @param rules            the configured allowlists
     * @param pairing          codes and approved users
     * @param pairingPlatforms platforms whose unknown DM users get a code; elsewhere they are ignored
     */
    public PairingAuthorizer(Authorizer rules, Pairing pairing, Set<Platform> pairingPlatforms) {
        this.rules = rules;
        this.pairing = pairing;
        this.pairingPlatforms = Set.copyOf(pairingPlatforms);
    }

    @Override
    public boolean isAuthorized(SessionSource source) {
        return rules.isAuthorized(source) || pairing.isApproved(source.platform(), source.userId());
    }

    @Override
    public boolean isAdmin(SessionSource source) {
        return rules.isAdmin(source);
    }

    @Override
    public Optional<String> refusalReply(SessionSource source) {
        if (!source.chatType().isDirect() || source.userId() == null || !pairingPlatforms.contains(source.platform())) {
            return Optional.empty();
        }
        return pairing.request(source.platform(), source.userId(), source.userName(), source.chatId())
                .map(code -> message(source.platform(), code));
    }

    /** The text an unknown DM user receives. */
    static String message(Platform platform, String code) {
        return "I don't know you yet, so I can't answer. Your pairing code: " + code + "\n"
                + "Ask the owner of this bot to run:\n"
                + "herald pairing approve " + platform.id() + " " + code + "\n"
                + "The code expires in " + Pairing.CODE_TTL.toMinutes() + " minutes.";
    }
}
