package dev.herald.web.oidc;

import java.io.Serial;

/**
 * A sign-in with the provider that did not work. {@link #status} is what the browser is answered (400 for a broken or
 * replayed flow, 403 for a person who is not let in, 502 when the provider failed); the message is shown to the person,
 * so it names the problem and never a secret or a token.
 */
public final class OidcException extends RuntimeException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int status;

    public OidcException(int status, String message) {
        super(message);
        this.status = status;
    }

    public OidcException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public int status() {
        return status;
    }

    static OidcException badToken(String fact) {
        return new OidcException(400, "the sign-in could not be checked: the provider's ID token " + fact + "; try again");
    }

    static OidcException provider(String fact, Throwable cause) {
        return new OidcException(502, "the sign-in provider could not be used: " + fact + "; try again, or ask your admin", cause);
    }
}
