package dev.herald.agent.egress;

/**
 * A fetch the egress guard will not make. The message is written for the model and the user: what was
 * refused and how an operator opens it, e.g. {@code 127.0.0.1 is a loopback address; add it to
 * agent.http_allow to allow it}.
 */
public final class EgressRefused extends Exception {
    public EgressRefused(String message) {
        super(message, null, false, false);
    }
}
