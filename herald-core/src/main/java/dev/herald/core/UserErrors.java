package dev.herald.core;

import dev.herald.core.session.StoreException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one rule for error texts that users read: a chat user's apology, a failed turn's reply, an API client's error
 * message. A chat user may be anyone the operator let in, so such a text says what happened in the user's terms and what
 * they can do, and never carries what only the operator should see or can act on: a log line's subject prefix
 * ({@code agent - }), an exception's class name, a URL, a host and port, a file path or a stack trace line. The
 * operator's version of the same failure goes to the log and the admin page.
 *
 * <p>Every producer of such a text goes through here: {@link #forUser} for an internal failure (an exception),
 * {@link #fromOperatorText} for a text written in the operator's style that is also shown to users (an agent's error
 * outcome, a model failure), and the gateway applies {@link #fromOperatorText} once more to every error outcome it
 * sends. {@link #unfit} is the check itself, which the tests of every producer use.
 */
public final class UserErrors {
    /** What a user reads when Herald itself failed (a bug, an unexpected exception): nothing to do but try again. */
    public static final String APOLOGY = "Sorry, something went wrong on my side while answering. Try again, or send /reset to start "
            + "a fresh session.";

    /** What an API client or a page reads when Herald failed to handle its request (a bug, an unexpected exception). */
    public static final String REQUEST_FAILED = "Sorry, Herald failed to handle this request on its side. Try again; the operator can "
            + "see the details in Herald's log.";

    /** A log line's subject at the start of the text or of a line: {@code agent - }, {@code api_server - }. */
    private static final Pattern SUBJECT = Pattern.compile("(?m)^\\s*[a-z][a-z0-9_.]* - ");
    /** An exception's or error's class name, bare or qualified. */
    private static final Pattern EXCEPTION = Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)*[A-Z][A-Za-z0-9_$]*(?:Exception|Error)\\b");
    /** A qualified Java name ({@code java.net.Foo}, {@code dev.herald.x.Y}). */
    private static final Pattern QUALIFIED = Pattern.compile("\\b(?:java|javax|jdk|sun|dev\\.herald|org|com|io|net)\\.[a-z][\\w.]*\\.[A-Z]");
    private static final Pattern URL = Pattern.compile("\\b[a-zA-Z][a-zA-Z0-9+.-]*://");
    private static final Pattern HOST_PORT = Pattern.compile(
            "\\b(?:localhost|\\d{1,3}(?:\\.\\d{1,3}){3}|\\[[0-9a-fA-F:]+\\]|[a-zA-Z0-9-]+(?:\\.[a-zA-Z0-9-]+)+):\\d{2,5}\\b");
    private static final Pattern PATH = Pattern.compile("(?:^|[\\s(\"'])(?:/[\\w.@-]+){2,}");
    private static final Pattern STACK = Pattern.compile("(?m)^\\s*at [\\w.$]+\\(");

    private UserErrors() {
    }

    /** What a user reads about {@code failure}, an internal error that ended their turn or request. */
    public static String forUser(Throwable failure) {
        return StoreException.isOutage(failure) ? storeUnavailable() : APOLOGY;
    }

    /** What an API client or a page reads about {@code failure}, an internal error that ended its request. */
    public static String forRequest(Throwable failure) {
        return StoreException.isOutage(failure) ? storeUnavailable() : REQUEST_FAILED;
    }

    /** What a user reads while Herald's store cannot write (a full disk, an unreachable database). */
    public static String storeUnavailable() {
        return "Sorry, Herald cannot save messages at the moment, so it could not take or answer this one. Please send it again in a "
                + "few minutes.";
    }

    /**
     * {@code text}, written in the operator's style ("subject - fact, next step"), as a user may read it: the subject
     * prefix is dropped (and the first letter of what is left raised); when what is left still carries something only the operator should
     * see (see {@link #unfit}), {@code fallback} instead. Null or blank stays as it is.
     */
    public static String fromOperatorText(String text, String fallback) {
        if (text == null || text.isBlank()) {
            return text;
        }
        String stripped = SUBJECT.matcher(text).replaceAll("").strip();
        if (stripped.isEmpty()) {
            return fallback;
        }
        String user = stripped.equals(text.strip()) ? text : Character.toUpperCase(stripped.charAt(0)) + stripped.substring(1);
        return unfit(user).isPresent() ? fallback : user;
    }

    /** Why {@code text} must not reach a user, or empty when it may: the check every producer's tests use. */
    public static Optional<String> unfit(String text) {
        if (text == null) {
            return Optional.empty();
        }
        if (SUBJECT.matcher(text).find()) {
            return Optional.of("it starts with a log subject (\"" + first(SUBJECT, text) + "\")");
        }
        if (EXCEPTION.matcher(text).find()) {
            return Optional.of("it names an exception class (" + first(EXCEPTION, text) + ")");
        }
        if (QUALIFIED.matcher(text).find()) {
            return Optional.of("it names a Java class (" + first(QUALIFIED, text) + ")");
        }
        if (URL.matcher(text).find()) {
            return Optional.of("it contains a URL");
        }
        if (HOST_PORT.matcher(text).find()) {
            return Optional.of("it names a host and port (" + first(HOST_PORT, text) + ")");
        }
        if (PATH.matcher(text).find()) {
            return Optional.of("it contains a file path (" + first(PATH, text).strip() + ")");
        }
        if (STACK.matcher(text).find()) {
            return Optional.of("it contains a stack trace line");
        }
        return Optional.empty();
    }

    private static String first(Pattern p, String text) {
        var m = p.matcher(text);
        return m.find() ? m.group() : "";
    }
}
