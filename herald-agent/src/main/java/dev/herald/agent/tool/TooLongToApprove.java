package dev.herald.agent.tool;

/**
 * A dangerous call whose approval question could not show all of it: it is refused without asking, and the
 * model reads why. An approval is only worth what the person saw, so nothing is ever shown clipped.
 */
public final class TooLongToApprove extends RuntimeException {
    public TooLongToApprove(String message) {
        super(message, null, false, false);
    }

    /** {@code text} when it is at most {@code limit} characters; else throws naming {@code what} and both lengths. */
    public static String check(String text, String what, int limit) {
        if (text.length() > limit) {
            throw new TooLongToApprove("the " + what + " is " + Texts.number(text.length()) + " characters, and approval questions show at "
                    + "most " + Texts.number(limit) + " so that the person approving can read all of it; it was not run and nobody was "
                    + "asked. Split the work into shorter steps.");
        }
        return text;
    }
}
