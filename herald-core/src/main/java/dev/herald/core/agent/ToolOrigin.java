package dev.herald.core.agent;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The marker every HTTP request made by one of Herald's own tools carries, so that Herald's own web server
 * can refuse it: anything the agent can fetch, a chat user can read, and the admin API, the web chat and the
 * API answer loopback callers. The header's presence is what counts (a request from another Herald process's
 * tools is refused too); the value is random per process so a log line can tell whose tool it was.
 */
public final class ToolOrigin {
    /** The header name, sent on every tool request and refused on every route of the web server. */
    public static final String HEADER = "X-Herald-Tool-Origin";
    /** This process's value of the header: 128 random bits, hex. */
    public static final String TOKEN = newToken();

    private ToolOrigin() {
    }

    /** True when a request header value says the request came from this very process's tools. */
    public static boolean isOwn(String value) {
        return TOKEN.equals(value);
    }

    private static String newToken() {
        byte[] bytes = new byte[16];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
