package dev.herald.app;

/** The process exit codes; the numbers follow BSD sysexits.h where one fits. */
public final class ExitCodes {
    /** Everything went as asked. */
    public static final int OK = 0;
    /** A failure that is not the operator's input: I/O, a crash, the runtime stopping on an error. */
    public static final int FAILURE = 1;
    /** EX_USAGE: an unknown option or command, a missing argument. */
    public static final int USAGE = 64;
    /** EX_CONFIG: the configuration file or an override variable cannot be used. */
    public static final int CONFIG = 78;

    private ExitCodes() {
    }
}
